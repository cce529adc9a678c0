#include "fuzzer/generate/mutator.h"

#include "corpus/knobs.h"
#include "fuzzer/generate/api_row.h"
#include "fuzzer/generate/generator.h"
#include "support/child_process.h"
#include "support/version.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>

namespace fuzzer::generate {
namespace {

using nlohmann::json;

// Lengths that sit on and around the boundaries Inductor's CPU code splits at (vector widths,
// block sizes, the flash-decoding partition), and a few odd ones.
const std::vector<std::int64_t> kLengths = {1,   2,   7,   15,  16,  17,  63,  64,  65,  127,
                                            128, 129, 200, 255, 256, 257, 384, 511, 512, 1024};
const std::vector<std::int64_t> kBlockSizes = {16, 32, 64, 128, 256};
const std::vector<std::string> kDtypes = {"float32", "bfloat16", "float16"};

template <typename T> const T &Pick(Random &random, const std::vector<T> &options) {
  return options[random.Below(options.size())];
}

class Mutator {
public:
  Mutator(corpus::Case &c, const corpus::Case &donor, const MutationRequest &request,
          const GenerationPolicy &policy, Random &random)
      : c_(c), donor_(donor), request_(request), policy_(policy), random_(random) {}

  // The change made, or "" when this mutation has nothing to change in this case.
  std::string Apply(const std::string &mutation) {
    if (!AppliesTo(mutation))
      return "";
    if (mutation == "knob")
      return Knob();
    if (mutation == "length")
      return Length();
    if (mutation == "block_size")
      return BlockSize();
    if (mutation == "dtype")
      return Dtype();
    if (mutation == "api")
      return Api();
    if (mutation == "closure_constant")
      return ClosureConstant();
    if (mutation == "add_call")
      return AddCall();
    if (mutation == "layout")
      return Layout();
    if (mutation == "compile_path")
      return CompilePath();
    if (mutation == "partition_size")
      return PartitionSize();
    if (mutation == "table_dtype")
      return TableDtype();
    if (mutation == "operator" || mutation == "constant" || mutation == "subexpression" ||
        mutation == "splice" || mutation == "wrap" || mutation == "detour")
      return Source(mutation);
    throw std::invalid_argument("unknown mutation " + mutation);
  }

private:
  // Whether the case's API lets the mutation change it (api_row.h): a tensor program has no
  // block mask, attention, calls or constants, and its source is a program, spliced only with
  // another program's.
  bool AppliesTo(const std::string &mutation) const {
    const GenerateApi &api = GenerateApiOf(c_.api);
    if (api.mutations.empty())
      return true;
    if (std::find(api.mutations.begin(), api.mutations.end(), mutation) == api.mutations.end())
      return false;
    return !api.splice_same_api || (mutation != "subexpression" && mutation != "splice") ||
           donor_.api == c_.api;
  }

  std::string Knob() {
    const auto &table = corpus::InductorKnobTable();
    const corpus::KnobSpec &knob = table[random_.Below(table.size())];
    corpus::InductorKnobs &knobs = c_.inductor;
    if (knob.optional) {
      // Set to one of its values, or back to Inductor's own.
      if (knobs.optional.contains(knob.name) && random_.Chance(0.3)) {
        knobs.optional.erase(knobs.optional.find(knob.name));
        return fmt::format("knob {} left to Inductor", knob.name);
      }
      const std::string &value = policy_.Draw(random_, std::string(knob.name));
      knobs.optional[std::string(knob.name)] = corpus::OptionalKnobValue(knob, value);
      return fmt::format("knob {}={}", knob.name, value);
    }
    knobs.defaulted.erase(std::string(knob.name));
    switch (knob.type) {
    case corpus::KnobType::kBool:
      knobs.*knob.flag = !(knobs.*knob.flag);
      return fmt::format("knob {}={}", knob.name, knobs.*knob.flag);
    case corpus::KnobType::kString: // only optional knobs are strings
      return "";
    case corpus::KnobType::kInt:
    case corpus::KnobType::kOptionalInt: {
      const std::string &value = policy_.Draw(random_, std::string(knob.name));
      if (knob.type == corpus::KnobType::kInt)
        knobs.*knob.number = std::stoi(value);
      else
        knobs.*knob.optional_number =
            value == "auto" ? std::nullopt : std::optional<int>(std::stoi(value));
      return fmt::format("knob {}={}", knob.name, value);
    }
    }
    return "";
  }

  std::string Length() {
    const bool query = random_.Chance(0.5);
    const std::int64_t length = Pick(random_, kLengths);
    auto &mask_length = query ? c_.create_block_mask.q_len : c_.create_block_mask.kv_len;
    if (mask_length == length)
      return "";
    mask_length = length;
    if (c_.attention)
      (query ? c_.attention->q_len : c_.attention->kv_len) = length;
    return fmt::format("{} = {}", query ? "Q_LEN" : "KV_LEN", length);
  }

  std::string BlockSize() {
    const std::int64_t size = Pick(random_, kBlockSizes);
    if (c_.create_block_mask.block_size == std::vector<std::int64_t>{size})
      return "";
    c_.create_block_mask.block_size = {size};
    return fmt::format("BLOCK_SIZE = {}", size);
  }

  std::string Dtype() {
    if (!c_.attention)
      return "";
    const std::string &dtype = Pick(random_, kDtypes);
    if (dtype == c_.attention->dtype)
      return "";
    c_.attention->dtype = dtype;
    for (auto &call : c_.calls)
      call.dtype.clear();
    return "dtype " + dtype;
  }

  // A captured table to another dtype of its kind, any the case format holds (the generator
  // draws int64 and bool index tables and three float dtypes): each loads and converts through
  // other at::vec instantiations. Only to a dtype that holds every value.
  std::string TableDtype() {
    if (c_.tensors.empty())
      return "";
    corpus::CapturedTensor &table = c_.tensors[random_.Below(c_.tensors.size())];
    if (table.dtype == "bool")
      return "";
    std::vector<std::string> fitting;
    for (const corpus::TensorDtype &dtype : corpus::TensorDtypes()) {
      // uint8 only where the API takes it (a program), so that the mutants of the other cases stay
      // what they were.
      if (dtype.name == "bool" || dtype.floating != table.IsFloating() ||
          dtype.name == table.dtype ||
          (dtype.name == "uint8" && !GenerateApiOf(c_.api).uint8_tables))
        continue;
      const auto fits = [&](const corpus::CapturedTensor &t) {
        return dtype.floating || std::all_of(t.integers.begin(), t.integers.end(), [&](auto v) {
                 return v >= dtype.min && v <= dtype.max;
               });
      };
      bool all_fit = fits(table);
      for (const auto &call : c_.calls)
        for (const auto &replacement : call.tensors)
          all_fit = all_fit && (replacement.name != table.name || fits(replacement));
      if (!all_fit)
        continue;
      fitting.emplace_back(dtype.name);
    }
    if (fitting.empty())
      return "";
    const std::string &dtype = Pick(random_, fitting);
    for (auto &call : c_.calls)
      for (auto &replacement : call.tensors)
        if (replacement.name == table.name && replacement.dtype == table.dtype)
          replacement.dtype = dtype;
    const std::string what = fmt::format("table {} {} -> {}", table.name, table.dtype, dtype);
    table.dtype = dtype;
    return what;
  }

  std::string Api() {
    const std::string_view to = GenerateApiOf(c_.api).swaps_to;
    if (to.empty())
      return "";
    c_.api = std::string(to);
    return "api " + c_.api;
  }

  // torch.compile <-> AOTInductor, where AOTInductor applies (one call, not meant to raise).
  std::string CompilePath() {
    if (c_.compile_with == corpus::kAoti)
      c_.compile_with = corpus::kTorchCompile;
    else if (c_.calls.empty() && c_.expect_raises.empty() &&
             !corpus::CorpusApiOf(c_.api).one_call && c_.compile_scope != corpus::kCompileFunction)
      c_.compile_with = corpus::kAoti;
    else
      return "";
    return "compiled with " + c_.compile_with;
  }

  // The inputs' memory layout (the families' "layout" weights, or back to contiguous).
  std::string Layout() {
    if (!c_.attention || !c_.attention->qkv.empty())
      return "";
    std::vector<std::string> layouts = {"contiguous"};
    for (const auto &[name, weight] : policy_.weights.at("layout"))
      layouts.push_back(name);
    const std::string &layout = Pick(random_, layouts);
    if (layout == c_.attention->layout)
      return "";
    c_.attention->layout = layout;
    return "layout " + layout;
  }

  // flash decoding's PARTITION_SIZE in flex_attention's kernel_options.
  std::string PartitionSize() {
    if (!c_.attention)
      return "";
    const std::string &size = policy_.Draw(random_, "partition_size");
    nlohmann::json &options = c_.attention->kernel_options;
    if (size == "absent") {
      if (!options.is_object() || !options.contains("PARTITION_SIZE"))
        return "";
      options.erase("PARTITION_SIZE");
      if (options.empty())
        options = nullptr;
      return "PARTITION_SIZE left to Inductor";
    }
    if (!options.is_object())
      options = nlohmann::json::object();
    options["PARTITION_SIZE"] = std::stoi(size);
    return "PARTITION_SIZE = " + size;
  }

  std::string ClosureConstant() {
    std::vector<std::string> ints;
    for (const auto &[name, value] : c_.constants.items())
      if (value.is_number_integer())
        ints.push_back(name);
    if (ints.empty())
      return "";
    const std::string &name = Pick(random_, ints);
    const std::int64_t old = c_.constants[name].get<std::int64_t>();
    const std::int64_t changed =
        Pick(random_, std::vector<std::int64_t>{old + 1, old - 1, old * 2, 0, 1, 128, -old});
    c_.constants[name] = changed;
    return fmt::format("closure {} = {}", name, changed);
  }

  std::string AddCall() {
    if (c_.calls.size() >= 3 || c_.compile_with == corpus::kAoti || // an exported program: one
        corpus::CorpusApiOf(c_.api).one_call)                       // call; a program: one call
      return "";
    corpus::CallChange call;
    std::vector<std::string> ints;
    for (const auto &[name, value] : c_.constants.items())
      if (value.is_number_integer())
        ints.push_back(name);
    if (!ints.empty() && random_.Chance(0.5)) {
      const std::string &name = Pick(random_, ints);
      call.constants[name] = c_.constants[name].get<std::int64_t>() + 1;
      c_.calls.push_back(call);
      return fmt::format("one more call with {} + 1", name);
    }
    const std::int64_t length = Pick(random_, kLengths);
    if (random_.Chance(0.5))
      call.q_len = length;
    else
      call.kv_len = length;
    c_.calls.push_back(call);
    return fmt::format("one more call with {} = {}", call.q_len ? "Q_LEN" : "KV_LEN", length);
  }

  // Through mutate_source.py, on mask_mod or score_mod; the donor's constants and tables the
  // change names come along, unless the case already has a different one of that name.
  std::string Source(const std::string &operation) {
    std::vector<corpus::MaskFunction *> functions;
    for (auto *function : {&c_.mask_mod, &c_.score_mod})
      if (*function)
        functions.push_back(&**function);
    if (functions.empty())
      return "";
    corpus::MaskFunction &function = *Pick(random_, functions);
    const bool score = c_.score_mod && &function == &*c_.score_mod;
    const auto &donor_function = score ? donor_.score_mod : donor_.mask_mod;
    if ((operation == "subexpression" || operation == "splice") && !donor_function)
      return "";
    const json request = {{"source", function.source},
                          {"operation", operation},
                          {"seed", random_.Next() >> 12},
                          {"donor", donor_function ? donor_function->source : ""}};
    const auto result = support::RunCommand(
        {request_.python.string(), "-c", request_.source_mutator, request.dump()}, {},
        std::chrono::seconds(20));
    if (!result.status.Succeeded())
      throw std::runtime_error(
          fmt::format("mutate_source.py failed ({}): {}", result.status.Describe(), result.output));
    const json answer = json::parse(result.output);
    if (answer["source"].is_null())
      return "";
    for (const auto &name : answer.value("names", std::vector<std::string>{}))
      if (!BringFromDonor(name))
        return "";
    function.source = answer["source"].get<std::string>();
    // What the change needs of Inductor to mean what it says (a rounding eager also makes).
    std::string knobs;
    const json needed = answer.value("knobs", json::object()); // items() does not extend it
    for (const auto &[name, value] : needed.items()) {
      const auto &table = corpus::InductorKnobTable();
      if (std::none_of(table.begin(), table.end(), [&](const corpus::KnobSpec &knob) {
            return knob.optional && knob.name == name;
          }))
        throw std::runtime_error(fmt::format("mutate_source.py asked for knob {}, which is not an "
                                             "optional knob of the table (corpus/knobs.cpp)",
                                             name));
      c_.inductor.optional[name] = value;
      knobs += fmt::format(", knob {}={}", name, value.dump());
    }
    return fmt::format("{} of {}: {}{}", operation, score ? "score_mod" : "mask_mod",
                       answer.value("what", ""), knobs);
  }

  bool BringFromDonor(const std::string &name) {
    if (donor_.constants.contains(name)) {
      // An index program is one call of the program itself, with no closure constants
      // (corpus/case_reader.cpp): a mutant holding one would run and then never load again.
      if (corpus::CorpusApiOf(c_.api).one_call)
        return false;
      if (c_.constants.contains(name))
        return c_.constants[name] == donor_.constants[name];
      c_.constants[name] = donor_.constants[name];
      return true;
    }
    const auto named = [&](const corpus::CapturedTensor &t) { return t.name == name; };
    const auto theirs = std::find_if(donor_.tensors.begin(), donor_.tensors.end(), named);
    const auto mine = std::find_if(c_.tensors.begin(), c_.tensors.end(), named);
    if (theirs == donor_.tensors.end())
      return mine != c_.tensors.end(); // a name neither defines: torch's, or the case's own
    if (mine != c_.tensors.end())
      return *mine == *theirs;
    c_.tensors.push_back(*theirs);
    return true;
  }

  corpus::Case &c_;
  const corpus::Case &donor_;
  const MutationRequest &request_;
  const GenerationPolicy &policy_;
  Random &random_;
};

} // namespace

MutatedCase MutateCase(const corpus::Case &parent, const corpus::Case &donor,
                       const MutationRequest &request, const GenerationPolicy &policy) {
  Random random = StreamOf(request.seed, request.index, RandomStream::kMutation);
  MutatedCase mutated{.c = parent};
  corpus::Case &c = mutated.c;
  Mutator mutator(c, donor, request, policy, random);
  const auto stack =
      1 + random.Below(static_cast<std::uint64_t>(std::max(1.0, policy.Number("mutation_stack"))));
  bool used_donor = false;
  // A mutation that finds nothing to change in this case is drawn again, a bounded number of
  // times: a case with no closure constant cannot have one changed.
  for (unsigned attempt = 0; mutated.mutations.size() < stack && attempt < 4 * stack; ++attempt) {
    const std::string &kind = policy.Draw(random, "mutation");
    std::string what = mutator.Apply(kind);
    if (what.empty())
      continue;
    used_donor = used_donor || kind == "subexpression" || kind == "splice";
    mutated.mutations.push_back(std::move(what));
  }
  c.name = fmt::format("s{}-{}", request.seed, request.index);
  c.expect_raises.clear();
  c.provenance = {{"seed", request.seed},
                  {"index", request.index},
                  {"origin", "mutation"},
                  {"parent", request.parent_id},
                  {"mutations", mutated.mutations},
                  {"generator_version", kGeneratorVersion},
                  {"policy_sha256", policy.Sha256()},
                  {"tool_version", support::ToolVersion()},
                  {"command_line", request.command_line}};
  if (used_donor)
    c.provenance["donor"] = request.donor_id;
  return mutated;
}

} // namespace fuzzer::generate

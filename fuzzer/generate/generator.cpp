#include "fuzzer/generate/generator.h"

#include "fuzzer/generate/api_row.h"
#include "fuzzer/generate/op_program.h"

#include "fuzzer/generate/case_builder.h"
#include "fuzzer/generate/expression.h"
#include "fuzzer/generate/random.h"

#include "corpus/api_row.h"
#include "support/sha256.h"
#include "support/version.h"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

namespace fuzzer::generate {
using E = Expression;

// The literal numbers of an expression that a closure constant may stand for: not inside a
// table's index, whose modulus keeps the index in range.
void CollectLiterals(Expression &e, std::vector<Expression *> &out) {
  if (e.op == "table" || e.op == "item")
    return;
  if (e.op == "int" || e.op == "float") {
    out.push_back(&e);
    return;
  }
  for (auto &arg : e.args)
    CollectLiterals(arg, out);
}

namespace {

// The mask patterns that read b or h (through a table indexed by it).
const std::map<std::string, std::string> kPatternReads = {{"jagged", "b"}, {"head_offset", "h"}};

} // namespace

Structure CaseBuilder::DrawStructure() {
  Structure s;
  s.api = Draw("api");
  s.mask_form = Draw("mask_form");
  if (s.mask_form == "none" && !corpus::CorpusApiOf(s.api).mask_mod_optional)
    s.mask_form = "pattern";
  if (s.mask_form == "pattern") {
    s.mask_parts = {Draw("mask_pattern")};
  } else if (s.mask_form == "composed") {
    const auto parts = 2 + random_.Below(static_cast<std::uint64_t>(
                               std::max(1.0, policy_.Number("max_composed_parts") - 1)));
    for (std::uint64_t i = 0; i < parts; ++i)
      s.mask_parts.push_back(random_.Chance(0.25) ? "random_expression" : Draw("mask_pattern"));
    s.and_masks = Chance("p_and_masks");
    ++features_[s.and_masks ? "compose:and_masks" : "compose:or_masks"];
  } else if (s.mask_form == "random_expression") {
    s.mask_parts = {"random_expression"};
  }
  if (corpus::CorpusApiOf(s.api).score_mod && (s.mask_form == "none" || Chance("p_score_mod")))
    s.score_pattern = Draw("score_pattern");
  s.q_length_class = Draw("length");
  s.kv_length_class =
      Chance("p_q_len_differs", "shape:q_len!=kv_len") ? Draw("length") : s.q_length_class;
  s.block_size_class = Draw("block_size");
  s.batch_none = Chance("p_batch_none", "shape:B=None");
  s.heads_none = Chance("p_heads_none", "shape:H=None");
  if (s.batch_none)
    s.mask_may_not_read.insert("b");
  if (s.heads_none)
    s.mask_may_not_read.insert("h");
  // The patterns that read b or h, drawn again: a case without them is the case it was.
  for (auto &part : s.mask_parts)
    if (const auto reads = kPatternReads.find(part);
        reads != kPatternReads.end() && s.mask_may_not_read.contains(reads->second)) {
      --features_["mask_pattern:" + part];
      std::set<std::string> excluded;
      for (const auto &[pattern, index] : kPatternReads)
        if (s.mask_may_not_read.contains(index))
          excluded.insert(pattern);
      part = DrawExcept("mask_pattern", excluded);
    }
  if (GenerateApiOf(s.api).attention) {
    s.dtype = Draw("dtype");
    s.head_dim_class = Draw("head_dim");
    s.value_dim_class =
        Chance("p_value_dim_differs", "shape:Ev!=E") ? Draw("head_dim") : s.head_dim_class;
    s.grouped_query = Chance("p_grouped_query", "shape:grouped_query");
  }
  s.data_dependent = !s.mask_parts.empty() && Chance("p_data_dependent", "data_dependent");

  // Knobs in the table's order: numbers from the category named after the knob, flags flipped
  // from their default with the knob's probability.
  const corpus::InductorKnobs defaults;
  for (const auto &knob : corpus::InductorKnobTable()) {
    const std::string name(knob.name);
    if (knob.optional) // drawn with the families
      continue;
    switch (knob.type) {
    case corpus::KnobType::kInt:
      s.knobs.*knob.number = std::stoi(Draw(name));
      break;
    case corpus::KnobType::kOptionalInt:
      if (const std::string value = Draw(name); value != "auto")
        s.knobs.*knob.optional_number = std::stoi(value);
      break;
    case corpus::KnobType::kString:
      break;
    case corpus::KnobType::kBool: {
      const bool flipped = !(defaults.*knob.flag);
      s.knobs.*knob.flag = Chance(std::string(knob.policy_probability),
                                  fmt::format("{}:{}", name, flipped ? "true" : "false"))
                               ? flipped
                               : defaults.*knob.flag;
      break;
    }
    }
  }
  if (policy_.Chance(sequence_random_, "p_call_sequence")) {
    const int extra = std::stoi(DrawFrom(sequence_random_, "extra_calls"));
    for (int i = 0; i < extra; ++i) {
      std::string change = DrawFrom(sequence_random_, "call_change");
      if (change == "dtype" && !corpus::CorpusApiOf(s.api).call_dtype)
        change = "constants";
      s.call_changes.push_back(change);
    }
    const std::string dynamic = DrawFrom(sequence_random_, "call_dynamic");
    if (dynamic == "automatic") {
      s.knobs.defaulted.insert("dynamic");
      s.knobs.dynamic = false; // unused: the value a reader gives a knob it leaves to Dynamo
    }
  }
  DrawFamilies(s);
  DrawReach(s);
  return s;
}

// The families from their own stream, so that with their probabilities at 0 every case is the
// case the same seed gave before they existed.
void CaseBuilder::DrawFamilies(Structure &s) {
  Random &random = family_random_;
  for (const auto &knob : corpus::InductorKnobTable())
    if (knob.optional && knob.target != corpus::KnobTarget::kEnvironment &&
        ChanceFrom(random, std::string(knob.policy_probability), "knob:optional"))
      s.knobs.optional[std::string(knob.name)] =
          corpus::OptionalKnobValue(knob, DrawFrom(random, std::string(knob.name)));
  if (!GenerateApiOf(s.api).attention)
    return;
  s.decode = ChanceFrom(random, "p_decode_shape", "shape:decode");
  if (ChanceFrom(random, "p_kernel_options", "kernel_options")) {
    s.kernel_options = nlohmann::json::object();
    if (const std::string partition = DrawFrom(random, "partition_size"); partition != "absent")
      s.kernel_options["PARTITION_SIZE"] = std::stoi(partition);
    // SKIP_MASK_SCORE has the CPU template apply neither function: only a case without a
    // score_mod and with a mask whose listed blocks are whole means the same with it.
    if (ChanceFrom(random, "p_skip_mask_score", "kernel_options:SKIP_MASK_SCORE")) {
      s.kernel_options["SKIP_MASK_SCORE"] = true;
      s.score_pattern.clear();
      s.mask_form = "pattern";
      s.mask_parts = {"block_causal"};
      s.data_dependent = false;
    }
  }
  if (ChanceFrom(random, "p_layout", "layout"))
    s.layout = DrawFrom(random, "layout");
  if (s.kernel_options.is_null() || !s.kernel_options.contains("SKIP_MASK_SCORE")) {
    if (ChanceFrom(random, "p_float_table_score", "score:float_table")) {
      s.float_table_score = DrawFrom(random, "float_table_score");
      s.float_table_dtype = DrawFrom(random, "float_table_dtype");
    }
  }
}

// Decode shapes: a handful of query rows against a long KV, so that with static shapes and a
// partition size that is a multiple of the KV block size the CPU template's flash decoding
// (Q_LEN 1, KV_LEN / B >= max(2 * PARTITION_SIZE, 512)) is reached.
void CaseBuilder::DrawDecodeShape(const Structure &s) {
  Random &random = family_random_;
  q_len_ = DrawFrom(random, "decode_q_len") == "1" ? 1 : random.Between(2, 16);
  const std::string kv = DrawFrom(random, "decode_kv_len");
  if (kv == "non_multiple") {
    kv_len_ = random.Between(513, 3071);
    if (kv_len_ % 64 == 0)
      ++kv_len_;
  } else {
    kv_len_ = std::stoll(kv);
  }
  (void)s;
}

void CaseBuilder::DrawValues(const Structure &s, corpus::Case &c) {
  case_ = &c;
  q_len_ = LengthOf(s.q_length_class);
  kv_len_ = s.kv_length_class == s.q_length_class && !features_.contains("shape:q_len!=kv_len")
                ? q_len_
                : LengthOf(s.kv_length_class);
  if (s.decode)
    DrawDecodeShape(s);
  batch_ = random_.Between(1, 2);
  heads_ = random_.Between(1, 4);
  c.api = s.api;
  c.inductor = s.knobs;

  auto &mask_args = c.create_block_mask;
  mask_args.q_len = q_len_;
  mask_args.kv_len = kv_len_;
  mask_args.batch = s.batch_none ? std::nullopt : std::optional<std::int64_t>(batch_);
  mask_args.heads = s.heads_none ? std::nullopt : std::optional<std::int64_t>(heads_);
  if (s.block_size_class == "tuple")
    mask_args.block_size = {random_.Pick(std::vector<std::int64_t>{64, 128}),
                            random_.Pick(std::vector<std::int64_t>{64, 128})};
  else
    mask_args.block_size = {std::stoll(s.block_size_class)};

  if (GenerateApiOf(s.api).attention) {
    corpus::AttentionArguments a;
    a.batch = batch_;
    a.kv_heads = s.grouped_query ? random_.Between(1, 2) : heads_;
    a.q_heads = s.grouped_query ? a.kv_heads * random_.Between(2, 4) : a.kv_heads;
    heads_ = a.q_heads;
    if (mask_args.heads)
      mask_args.heads = heads_;
    a.q_len = q_len_;
    a.kv_len = kv_len_;
    a.head_dim = std::stoll(s.head_dim_class);
    a.value_dim = std::stoll(s.value_dim_class);
    a.dtype = s.dtype;
    a.input_seed = static_cast<std::int64_t>(random_.Below(1u << 31));
    a.use_block_mask = !s.mask_parts.empty();
    a.enable_gqa = s.grouped_query;
    a.kernel_options = s.kernel_options;
    a.layout = s.layout;
    c.attention = a;
  }

  // Emission of the functions (phase 3) needs the expressions; draw them here, in order.
  std::vector<E> parts;
  leaves_excluded_ = s.mask_may_not_read;
  for (const auto &part : s.mask_parts) {
    parts.push_back(MaskPattern(part));
  }
  leaves_excluded_.clear();
  if (s.data_dependent && !parts.empty()) {
    // A Python scalar taken from a tensor indexed by q_idx: data-dependent by construction.
    const std::string table = AddTable("threshold", "int64", 4, [](std::int64_t) { return 0; });
    parts.back() = E::Binary(
        "&", parts.back(),
        E::Binary(">=", E::Var("q_idx", ValueType::kInt),
                  E::Unary("item",
                           E::Table(table, ValueType::kInt,
                                    E::Binary("%", E::Var("q_idx", ValueType::kInt), E::Int(4))))));
    c.expect_raises = "data-dependent";
  }
  std::optional<E> score;
  if (!s.score_pattern.empty())
    score = ScorePattern(s.score_pattern);
  if (!s.score_program.empty())
    score = ScoreProgram(s.score_program, score ? *score : E::Var("score", ValueType::kFloat));
  if (!s.float_table_score.empty())
    score = FloatTableScore(s.float_table_score, s.float_table_dtype,
                            score ? *score : E::Var("score", ValueType::kFloat));
  ApplyReach(s, parts, score, c);
  if (!s.call_changes.empty()) {
    std::vector<E *> literals;
    // SKIP_MASK_SCORE's mask must stay whole blocks in every call: its block sizes stay literal.
    if (s.kernel_options.is_null() || !s.kernel_options.contains("SKIP_MASK_SCORE"))
      for (auto &part : parts)
        CollectLiterals(part, literals);
    if (score)
      CollectLiterals(*score, literals);
    DrawCallSequence(s, std::move(literals), c);
  }
  if (!parts.empty()) {
    std::string source;
    if (parts.size() == 1) {
      source =
          fmt::format("def mask_mod(b, h, q_idx, kv_idx):\n    return {}\n", ToPython(parts[0]));
    } else {
      std::vector<std::string> names;
      for (std::size_t i = 0; i < parts.size(); ++i) {
        names.push_back(fmt::format("mask_part{}", i));
        source += fmt::format("def {}(b, h, q_idx, kv_idx):\n    return {}\n\n", names.back(),
                              ToPython(parts[i]));
      }
      source += fmt::format("mask_mod = {}({})\n", s.and_masks ? "and_masks" : "or_masks",
                            fmt::join(names, ", "));
    }
    c.mask_mod = corpus::MaskFunction{"mask_mod", source};
  }
  if (score)
    c.score_mod = corpus::MaskFunction{
        "score_mod", fmt::format("def score_mod(score, b, h, q_idx, kv_idx):\n    return {}\n",
                                 ToPython(*score))};
}

// A later call's value of a closure constant: the same sign, never zero where it was not (a
// divisor stays a divisor), and different.
namespace {

nlohmann::json ChangedConstant(const E &literal, Random &random) {
  if (literal.op == "float") {
    const double factor = random.Pick(std::vector<double>{0.5, 0.75, 1.5, 2.0});
    return literal.real == 0 ? 1.0 : literal.real * factor;
  }
  const std::int64_t step = random.Between(1, 32);
  return literal.integer >= 0 ? literal.integer + step : literal.integer - step;
}

} // namespace

// The constants are named c0, c1, ... or as DrawReach drew their names.
std::vector<E> CaseBuilder::LiftConstants(const Structure &s, std::vector<E *> literals,
                                          Random &random, corpus::Case &c) {
  const auto wanted = static_cast<std::size_t>(policy_.Number("max_closure_constants"));
  std::vector<E *> lifted;
  while (!literals.empty() && lifted.size() < wanted) {
    const std::size_t at = random.Below(literals.size());
    lifted.push_back(literals[at]);
    literals.erase(literals.begin() + static_cast<std::ptrdiff_t>(at));
  }
  std::vector<E> originals;
  for (std::size_t i = 0; i < lifted.size(); ++i) {
    E &literal = *lifted[i];
    originals.push_back(literal);
    const std::string name =
        i < s.closure_names.size() ? s.closure_names[i] : fmt::format("c{}", i);
    c.constants[name] =
        literal.op == "float" ? nlohmann::json(literal.real) : nlohmann::json(literal.integer);
    literal = E{.op = "var", .type = literal.type, .name = name, .indexed = false};
  }
  return originals;
}

void CaseBuilder::DrawCallSequence(const Structure &s, std::vector<E *> literals, corpus::Case &c) {
  // Some of the literals become constants the functions close over.
  const std::vector<E> originals = LiftConstants(s, std::move(literals), sequence_random_, c);
  for (const std::string &change : s.call_changes) {
    corpus::CallChange call;
    if (change == "constants" && !originals.empty()) {
      for (std::size_t i = 0; i < originals.size(); ++i)
        call.constants[i < s.closure_names.size() ? s.closure_names[i] : fmt::format("c{}", i)] =
            ChangedConstant(originals[i], sequence_random_);
    } else if (change == "shape" || (change == "constants" && originals.empty())) {
      // Shorter only: tables indexed by q_idx or kv_idx are as long as the first call's shape.
      call.q_len = sequence_random_.Between(1, q_len_);
      call.kv_len = q_len_ == kv_len_ ? *call.q_len : sequence_random_.Between(1, kv_len_);
    } else if (change == "tables" && !c.tensors.empty()) {
      corpus::CapturedTensor table =
          c.tensors[sequence_random_.Below(c.tensors.size())]; // the same values, shuffled
      auto shuffle = [&](auto &values) {
        for (std::size_t i = values.size(); i > 1; --i)
          std::swap(values[i - 1], values[sequence_random_.Below(i)]);
      };
      shuffle(table.integers);
      shuffle(table.reals);
      call.tensors.push_back(std::move(table));
    } else if (change == "dtype" && c.attention) {
      std::vector<std::string> others;
      for (const char *dtype : {"float32", "bfloat16", "float16"})
        if (dtype != c.attention->dtype)
          others.push_back(dtype);
      call.dtype = sequence_random_.Pick(others);
    } else {
      call.q_len = sequence_random_.Between(1, q_len_); // nothing else to change
      call.kv_len = q_len_ == kv_len_ ? *call.q_len : kv_len_;
    }
    c.calls.push_back(std::move(call));
  }
}

bool AotiApplies(const corpus::Case &c) {
  // One call only: an exported program has fixed shapes and closure constants. A case meant to
  // raise stays with torch.compile, where its expectation was defined.
  return c.calls.empty() && c.expect_raises.empty() &&
         c.compile_scope != corpus::kCompileFunction && GenerateApiOf(c.api).aoti;
}

GeneratedCase GenerateCase(const GenerationRequest &request, const GenerationPolicy &policy) {
  Random random = StreamOf(request.seed, request.index, RandomStream::kStructure);
  Random sequence_random = StreamOf(request.seed, request.index, RandomStream::kCallSequence);
  Random family_random = StreamOf(request.seed, request.index, RandomStream::kFamily);
  Random reach_random = StreamOf(request.seed, request.index, RandomStream::kReach);
  CaseBuilder builder(random, sequence_random, family_random, reach_random, policy);
  GeneratedCase generated;
  corpus::Case &c = generated.c;
  c.name = fmt::format("s{}-{}", request.seed, request.index);
  const Structure structure = builder.DrawStructure();
  builder.DrawValues(structure, c);
  // Op programs, from their own stream: a case that is not one is the case version 7 gave.
  Random op_random = StreamOf(request.seed, request.index, RandomStream::kOpProgram);
  // The APIs drawn on their own (api_row.h: tensor programs), each from its own stream too, in
  // place of an op program: a case that is none is the case version 9 gave.
  const GenerateApi *drawn = nullptr;
  Random api_random(0);
  for (const GenerateApi &api : GenerateApis()) {
    if (!api.draw)
      continue;
    api_random = StreamOf(request.seed, request.index, api.stream);
    if (policy.Chance(api_random, std::string(api.chance))) {
      drawn = &api;
      break;
    }
  }
  if (!drawn && policy.Chance(op_random, "p_op_program"))
    DrawOpProgram(op_random, policy, c, builder.features_);
  if (drawn)
    drawn->draw(api_random, policy, c, builder.features_);
  // The compile path, from its own stream, last: a case drawn with torch.compile is the case the
  // same seed gave before AOTInductor was drawn.
  Random compile_path_random = StreamOf(request.seed, request.index, RandomStream::kCompilePath);
  if (AotiApplies(c) && policy.Chance(compile_path_random, "p_aoti"))
    c.compile_with = corpus::kAoti;
  ++builder.features_["compile_with:" + c.compile_with];
  c.provenance = {{"seed", request.seed},
                  {"index", request.index},
                  {"generator_version", kGeneratorVersion},
                  {"policy_sha256", policy.Sha256()},
                  {"tool_version", support::ToolVersion()},
                  {"command_line", request.command_line}};
  generated.features = std::move(builder.features_);
  if (FlashDecodingExpected(c))
    ++generated.features["decode:flash_decoding_expected"];
  return generated;
}

bool FlashDecodingExpected(const corpus::Case &c) {
  if (!c.attention || (c.inductor.dynamic && !c.inductor.IsDefaulted("dynamic")))
    return false;
  const auto &a = *c.attention;
  const std::int64_t kv_block = a.use_block_mask ? c.create_block_mask.block_size.back() : 128;
  std::int64_t partition = 128;
  if (a.kernel_options.is_object() && a.kernel_options.contains("PARTITION_SIZE") &&
      a.kernel_options["PARTITION_SIZE"].is_number_integer())
    partition = a.kernel_options["PARTITION_SIZE"].get<std::int64_t>();
  return a.q_len == 1 && partition > 0 && partition % kv_block == 0 &&
         a.kv_len >= a.batch * std::max<std::int64_t>(2 * partition, 512);
}

std::string StableCaseHash(const corpus::Case &c) {
  auto document = corpus::CaseToJson(c);
  document["provenance"].erase("tool_version");
  document["provenance"].erase("command_line");
  return support::Sha256Hex(document.dump());
}

std::map<std::string, int> CountFeatures(const GenerationPolicy &policy, std::uint64_t seed,
                                         std::uint64_t count) {
  std::map<std::string, int> totals;
  for (const auto &[category, options] : policy.weights)
    if (category != "mutation") // feedback's, not the generator's
      for (const auto &[option, weight] : options)
        totals[category + ":" + option] += 0;
  for (const auto &path : corpus::kCompilePaths)
    totals["compile_with:" + path] += 0;
  for (std::uint64_t i = 0; i < count; ++i)
    for (const auto &[feature, times] : GenerateCase({seed, i, ""}, policy).features)
      totals[feature] += times;
  return totals;
}

} // namespace fuzzer::generate

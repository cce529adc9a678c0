#include "reducers/case/case_passes.h"

#include "reducers/case/api_row.h"

#include "corpus/api_row.h"

#include "corpus/field_reader.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/scratch_dir.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace reducers {
namespace {

using corpus::Case;
using nlohmann::json;

// The syntax-tree script's answer for one source: {"nodes": N, "candidates": [...]}.
// A tensor program's leaves are its arguments and values, not a mask's indices.
json AskMaskAst(const std::string &source, const std::string &function, std::string_view pass,
                const PassContext &context, bool program = false) {
  const support::ScratchDir scratch("mask-ast");
  const auto request = scratch / "request.json";
  json asked = {{"source", source}, {"function", function}, {"pass", pass}};
  if (program)
    asked["program"] = true;
  support::WriteFileAtomically(request, asked.dump());
  const auto result =
      support::RunCommand({"sh", "-c", "exec \"$0\" -c \"$1\" < \"$2\"", context.python.string(),
                           context.mask_ast_source, request.string()},
                          {.stderr_file = scratch / "stderr"}, std::chrono::seconds(60));
  json answer = json::parse(result.output, nullptr, false);
  if (!result.status.Succeeded() || answer.is_discarded() || !answer.is_object())
    throw support::InputError(fmt::format(
        "the syntax-tree pass {} failed on {} ({}): {}{}", pass, function, result.status.Describe(),
        answer.is_object() ? answer.value("error", "") : result.output,
        support::ReadTextFile(scratch / "stderr", "stderr", 1 << 20)));
  return answer;
}

// A syntax-tree pass over mask_mod, then score_mod.
template <const char *kPass>
std::vector<Case> SyntaxTreePass(const Case &c, const PassContext &context) {
  std::vector<Case> candidates;
  for (auto member : {&Case::mask_mod, &Case::score_mod}) {
    if (!(c.*member))
      continue;
    const auto answer = AskMaskAst((c.*member)->source, (c.*member)->name, kPass, context,
                                   corpus::CorpusApiOf(c.api).program);
    for (const auto &source : answer["candidates"]) {
      Case candidate = c;
      (candidate.*member)->source = static_cast<std::string>(source);
      candidates.push_back(std::move(candidate));
    }
  }
  return candidates;
}

constexpr char kDropMaskArm[] = "drop-mask-arm";
constexpr char kDropOutput[] = "drop-output";
constexpr char kDropUnused[] = "drop-unused";
constexpr char kInlineHelpers[] = "inline-helpers";
constexpr char kReplaceByChild[] = "replace-by-child";
constexpr char kReplaceByLeaf[] = "replace-by-leaf";
constexpr char kShrinkConstants[] = "shrink-constants";

// An aoti case compiled with torch.compile instead, a compiled function replaced by the API
// compiled alone, a block mask with its full blocks separate again: accepted only if it fails
// the same way.
std::vector<Case> UseTorchCompile(const Case &c, const PassContext &) {
  std::vector<Case> candidates;
  if (c.compile_with != corpus::kTorchCompile) {
    Case candidate = c;
    candidate.compile_with = corpus::kTorchCompile;
    candidates.push_back(std::move(candidate));
  }
  if (c.compile_scope != corpus::kCompileApi) {
    Case candidate = c;
    candidate.compile_scope = corpus::kCompileApi;
    candidates.push_back(std::move(candidate));
  }
  if (!c.create_block_mask.separate_full_blocks) {
    Case candidate = c;
    candidate.create_block_mask.separate_full_blocks = true;
    if (candidate.attention && candidate.attention->from_kv_blocks)
      candidate.attention->from_kv_blocks->full = "contiguous";
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

// A case of a simpler API, as its row names them (flex_attention to create_mask or
// create_block_mask; create_block_mask to create_mask).
std::vector<Case> DemoteApi(const Case &c, const PassContext &) {
  std::vector<Case> candidates;
  if (!c.mask_mod)
    return candidates;
  for (const std::string_view api : ReduceApiOf(c.api).demotes_to) {
    Case candidate = c;
    candidate.api = std::string(api);
    candidate.score_mod.reset();
    candidate.attention.reset();
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

std::vector<Case> DropScoreMod(const Case &c, const PassContext &) {
  if (!c.score_mod || !c.mask_mod)
    return {};
  Case candidate = c;
  candidate.score_mod.reset();
  return {candidate};
}

// Smaller values for a size: 1, then around the block size, then half.
std::vector<std::int64_t> SmallerSizes(std::int64_t value, std::int64_t block) {
  std::vector<std::int64_t> sizes = {1, block - 1, block, block + 1, value / 2, value - 1};
  std::vector<std::int64_t> kept;
  for (const auto size : sizes)
    if (size >= 1 && size < value && std::find(kept.begin(), kept.end(), size) == kept.end())
      kept.push_back(size);
  return kept;
}

// B, H, Q_LEN, KV_LEN, head dims and block size toward the smallest, keeping the block mask's
// sizes and the attention inputs' in step.
std::vector<Case> ShrinkShapes(const Case &c, const PassContext &) {
  std::vector<Case> candidates;
  if (!corpus::CorpusApiOf(c.api).block_mask) // its shapes are its inputs' (its own passes)
    return candidates;
  const std::int64_t block = c.create_block_mask.block_size.front();
  auto &mask = c.create_block_mask;
  for (const auto size : SmallerSizes(mask.q_len, block)) {
    Case candidate = c;
    candidate.create_block_mask.q_len = size;
    if (candidate.attention)
      candidate.attention->q_len = size;
    candidates.push_back(std::move(candidate));
  }
  for (const auto size : SmallerSizes(mask.kv_len, block)) {
    Case candidate = c;
    candidate.create_block_mask.kv_len = size;
    if (candidate.attention)
      candidate.attention->kv_len = size;
    candidates.push_back(std::move(candidate));
  }
  const std::int64_t batch = c.attention ? c.attention->batch : mask.batch.value_or(1);
  if (batch > 1 || (mask.batch && *mask.batch > 1)) {
    Case candidate = c;
    if (candidate.create_block_mask.batch)
      candidate.create_block_mask.batch = 1;
    if (candidate.attention)
      candidate.attention->batch = 1;
    candidates.push_back(std::move(candidate));
  }
  const bool many_heads = (mask.heads && *mask.heads > 1) ||
                          (c.attention && (c.attention->q_heads > 1 || c.attention->kv_heads > 1));
  if (many_heads) {
    Case candidate = c;
    if (candidate.create_block_mask.heads)
      candidate.create_block_mask.heads = 1;
    if (candidate.attention)
      candidate.attention->q_heads = candidate.attention->kv_heads = 1;
    candidates.push_back(std::move(candidate));
  }
  if (c.attention)
    for (auto member :
         {&corpus::AttentionArguments::head_dim, &corpus::AttentionArguments::value_dim})
      for (const std::int64_t size : {std::int64_t{8}, std::int64_t{16}})
        if ((*c.attention).*member > size) {
          Case candidate = c;
          (*candidate.attention).*member = size;
          candidates.push_back(std::move(candidate));
        }
  for (const std::int64_t size : {16, 32, 64})
    if (mask.block_size.size() == 1 && size < block) {
      Case candidate = c;
      candidate.create_block_mask.block_size = {size};
      candidates.push_back(std::move(candidate));
    }
  return candidates;
}

// Each Inductor knob back to its default, one at a time.
std::vector<Case> ResetKnobs(const Case &c, const PassContext &) {
  std::vector<Case> candidates;
  const corpus::InductorKnobs defaults;
  for (const auto &knob : corpus::InductorKnobTable()) {
    Case candidate = c;
    if (knob.flag)
      candidate.inductor.*knob.flag = defaults.*knob.flag;
    if (knob.number)
      candidate.inductor.*knob.number = defaults.*knob.number;
    if (knob.optional_number)
      candidate.inductor.*knob.optional_number = defaults.*knob.optional_number;
    if (!(candidate.inductor == c.inductor))
      candidates.push_back(std::move(candidate));
  }
  for (const auto &[name, value] : c.inductor.optional) { // back to Inductor's own value
    Case candidate = c;
    candidate.inductor.optional.erase(name);
    candidates.push_back(std::move(candidate));
  }
  return candidates;
}

// GQA off, float32, no block mask, input seed 0, contiguous inputs, no kernel_options (all, then
// one at a time).
std::vector<Case> SimplifyAttention(const Case &c, const PassContext &) {
  std::vector<Case> candidates;
  if (!c.attention)
    return candidates;
  const auto &a = *c.attention;
  if (a.enable_gqa) {
    Case candidate = c;
    candidate.attention->enable_gqa = false;
    candidate.attention->q_heads = candidate.attention->kv_heads;
    if (candidate.create_block_mask.heads)
      candidate.create_block_mask.heads = candidate.attention->q_heads;
    candidates.push_back(std::move(candidate));
  }
  if (a.dtype != "float32") {
    Case candidate = c;
    candidate.attention->dtype = "float32";
    candidates.push_back(std::move(candidate));
  }
  if (a.input_seed != 0) {
    Case candidate = c;
    candidate.attention->input_seed = 0;
    candidates.push_back(std::move(candidate));
  }
  if (a.layout != corpus::kContiguousLayout) {
    Case candidate = c;
    candidate.attention->layout = corpus::kContiguousLayout;
    candidates.push_back(std::move(candidate));
  }
  if (a.from_kv_blocks) {
    Case candidate = c; // create_block_mask's own mask
    candidate.attention->from_kv_blocks.reset();
    candidates.push_back(std::move(candidate));
    for (auto field : {&corpus::FromKvBlocks::partial, &corpus::FromKvBlocks::full})
      if ((*a.from_kv_blocks).*field != "contiguous") {
        Case contiguous = c;
        (*contiguous.attention->from_kv_blocks).*field = "contiguous";
        candidates.push_back(std::move(contiguous));
      }
  }
  if (a.return_lse) {
    Case candidate = c;
    candidate.attention->return_lse = false;
    candidates.push_back(std::move(candidate));
  }
  if (!a.kernel_options.is_null()) {
    Case candidate = c;
    candidate.attention->kernel_options = nullptr;
    candidates.push_back(std::move(candidate));
    if (a.kernel_options.size() > 1)
      for (const auto &[key, value] : a.kernel_options.items()) {
        Case without = c;
        without.attention->kernel_options.erase(key);
        candidates.push_back(std::move(without));
      }
  }
  return candidates;
}

// Captured tensors dropped, shortened (one-dimensional ones, to half) or filled with one value.
// A tensor program's tensors are its inputs' storages, which its views reach: only filled here
// (contiguous-inputs, shrink-inputs and simplify-dtypes cut and convert them).
std::vector<Case> ShrinkTensors(const Case &c, const PassContext &) {
  std::vector<Case> candidates;
  const bool program = ReduceApiOf(c.api).tensors_are_storages;
  for (std::size_t i = 0; i < c.tensors.size(); ++i) {
    const auto &tensor = c.tensors[i];
    if (!program) {
      Case without = c;
      without.tensors.erase(without.tensors.begin() + static_cast<std::ptrdiff_t>(i));
      candidates.push_back(std::move(without)); // a tensor no function reads any more
      if (tensor.shape.size() == 1 && tensor.size() > 1) {
        Case candidate = c;
        auto &shorter = candidate.tensors[i];
        const std::size_t half = tensor.size() / 2;
        shorter.shape = {static_cast<std::int64_t>(half)};
        if (tensor.IsFloating())
          shorter.reals.resize(half);
        else
          shorter.integers.resize(half);
        candidates.push_back(std::move(candidate));
      }
      if (tensor.IsFloating() && tensor.dtype != "float32") { // its values, as float32
        Case candidate = c;
        candidate.tensors[i].dtype = "float32";
        candidates.push_back(std::move(candidate));
      }
    }
    const bool uniform =
        tensor.IsFloating()
            ? std::set<double>(tensor.reals.begin(), tensor.reals.end()).size() <= 1
            : std::set<std::int64_t>(tensor.integers.begin(), tensor.integers.end()).size() <= 1;
    if (!uniform) {
      for (const std::int64_t value : {0, 1}) {
        Case candidate = c;
        auto &filled = candidate.tensors[i];
        std::fill(filled.integers.begin(), filled.integers.end(), value);
        std::fill(filled.reals.begin(), filled.reals.end(), static_cast<double>(value));
        candidates.push_back(std::move(candidate));
      }
    }
  }
  return candidates;
}

// A shorter call sequence: each later call dropped, or one of its changes undone.
std::vector<Case> ShortenCalls(const Case &c, const PassContext &) {
  std::vector<Case> candidates;
  for (std::size_t i = 0; i < c.calls.size(); ++i) {
    Case without = c;
    without.calls.erase(without.calls.begin() + static_cast<std::ptrdiff_t>(i));
    candidates.push_back(std::move(without));
    const corpus::CallChange &call = c.calls[i];
    const int changes = !call.constants.empty() + (call.batch || call.q_len || call.kv_len) +
                        !call.tensors.empty() + !call.dtype.empty();
    if (changes < 2)
      continue;
    auto undo = [&](auto &&edit) {
      Case candidate = c;
      edit(candidate.calls[i]);
      candidates.push_back(std::move(candidate));
    };
    if (!call.constants.empty())
      undo([](corpus::CallChange &change) { change.constants = nlohmann::json::object(); });
    if (call.batch || call.q_len || call.kv_len)
      undo([](corpus::CallChange &change) { change.batch = change.q_len = change.kv_len = {}; });
    if (!call.tensors.empty())
      undo([](corpus::CallChange &change) { change.tensors.clear(); });
    if (!call.dtype.empty())
      undo([](corpus::CallChange &change) { change.dtype.clear(); });
  }
  return candidates;
}

// Closure constants no call changes, written into the sources as plain assignments, so that
// the repro needs no factory.
std::vector<Case> InlineConstants(const Case &c, const PassContext &) {
  if (c.constants.empty())
    return {};
  for (const auto &call : c.calls)
    if (!call.constants.empty())
      return {};
  std::string assignments;
  for (const auto &[name, value] : c.constants.items())
    assignments +=
        fmt::format("{} = {}\n", name,
                    value.is_boolean() ? (value.get<bool>() ? "True" : "False") : value.dump());
  Case candidate = c;
  candidate.constants = nlohmann::json::object();
  for (auto *function : {&candidate.mask_mod, &candidate.score_mod})
    if (*function)
      (*function)->source = assignments + (*function)->source;
  return {candidate};
}

// Every API's passes: the API's own are added to these (CasePasses).
std::vector<CasePass> CommonPasses() {
  return {
      {"shorten-calls", "a later call dropped, or one of its changes undone", ShortenCalls},
      {"inline-constants", "closure constants no call changes made plain globals", InlineConstants},
      {"demote-api", "flex_attention to create_block_mask or create_mask", DemoteApi},
      {"drop-score-mod", "flex_attention without its score_mod", DropScoreMod},
      {"drop-mask-arm", "one argument of and_masks/or_masks less", SyntaxTreePass<kDropMaskArm>},
      {"drop-output", "one output less in the tuple a tensor program returns",
       SyntaxTreePass<kDropOutput>},
      {"drop-unused", "statements whose value nothing uses dropped", SyntaxTreePass<kDropUnused>},
      {"inline-helpers", "`mask = helper` inlined, unused helpers dropped",
       SyntaxTreePass<kInlineHelpers>},
      {"replace-by-child", "a subexpression replaced by one of its operands",
       SyntaxTreePass<kReplaceByChild>},
      {"replace-by-leaf", "a subexpression replaced by an index, a comparison or a constant",
       SyntaxTreePass<kReplaceByLeaf>},
      {"shrink-constants", "a number moved toward 0 and 1", SyntaxTreePass<kShrinkConstants>},
      {"shrink-shapes", "B, H, Q_LEN, KV_LEN, head dims and block size made smaller", ShrinkShapes},
      {"reset-knobs", "an Inductor knob back to its default", ResetKnobs},
      {"simplify-attention",
       "GQA off, float32, input seed 0, contiguous inputs, kernel_options dropped",
       SimplifyAttention},
      {"shrink-tensors", "captured tensors dropped, shorter, constant or float32", ShrinkTensors},
      {"use-torch-compile",
       "torch.compile of the API alone, with full blocks kept apart, instead of AOTInductor, a "
       "compiled function or separate_full_blocks=False",
       UseTorchCompile},
  };
}

} // namespace

const std::vector<CasePass> &CasePasses() {
  static const std::vector<CasePass> passes = [] {
    std::vector<CasePass> all = CommonPasses();
    // Each API's own passes (api_row.h), in the rows' order, before the last common pass.
    for (const ReduceApi &api : ReduceApis())
      all.insert(all.end() - 1, api.passes.begin(), api.passes.end());
    return all;
  }();
  return passes;
}

const CasePass *FindCasePass(std::string_view name) {
  for (const auto &pass : CasePasses())
    if (pass.name == name)
      return &pass;
  return nullptr;
}

std::vector<const CasePass *> LoadCasePassOrder(const std::filesystem::path &file) {
  const json document = corpus::ReadJsonDocument(file, "pass order", "fix the file's JSON");
  if (!document.is_object() || !document.contains("case_passes") ||
      !document["case_passes"].is_array())
    throw support::InputError(
        fmt::format("{} has no \"case_passes\" list of pass names", file.string()));
  std::vector<const CasePass *> order;
  for (const auto &name : document["case_passes"]) {
    const CasePass *pass = name.is_string() ? FindCasePass(name.get<std::string>()) : nullptr;
    if (!pass) {
      std::string known;
      for (const auto &each : CasePasses())
        known += (known.empty() ? "" : ", ") + std::string(each.name);
      throw support::InputError(
          fmt::format("{}: {} is not a case pass; known: {}", file.string(), name.dump(), known));
    }
    order.push_back(pass);
  }
  return order;
}

int ExpressionNodes(const Case &c, const PassContext &context) {
  int nodes = 0;
  for (const auto *function : {&c.mask_mod, &c.score_mod})
    if (*function)
      nodes +=
          AskMaskAst((*function)->source, (*function)->name, "count", context)["nodes"].get<int>();
  return nodes;
}

std::int64_t CaseVolume(const Case &c) {
  std::int64_t volume = 0;
  for (const auto &tensor : c.tensors)
    volume += static_cast<std::int64_t>(tensor.size());
  if (const auto inputs = ReduceApiOf(c.api).volume) // its own inputs; then no block mask
    if (const auto elements = inputs(c))
      return volume + *elements;
  const auto &mask = c.create_block_mask;
  volume += mask.batch.value_or(1) * mask.heads.value_or(1) * mask.q_len * mask.kv_len;
  if (c.attention) {
    const auto &a = *c.attention;
    volume += a.batch * (a.q_heads * a.q_len * a.head_dim +
                         a.kv_heads * a.kv_len * (a.head_dim + a.value_dim));
  }
  return volume;
}

} // namespace reducers

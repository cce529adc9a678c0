#include "corpus/case.h"
#include "corpus/case_tensors.h"

#include "corpus/field_reader.h"
#include "support/sha256.h"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

namespace corpus {
namespace {

using nlohmann::json;

json TensorToJson(const CapturedTensor &tensor) {
  json values = json::array();
  if (tensor.IsFloating())
    values = tensor.reals;
  else if (tensor.dtype == "bool")
    for (auto value : tensor.integers)
      values.push_back(value != 0);
  else
    values = tensor.integers;
  return {
      {"name", tensor.name}, {"dtype", tensor.dtype}, {"shape", tensor.shape}, {"values", values}};
}

json TensorsToJson(const std::vector<CapturedTensor> &tensors) {
  json out = json::array();
  for (const auto &tensor : tensors)
    out.push_back(TensorToJson(tensor));
  return out;
}

} // namespace

bool UsesVersion2Dtypes(const std::vector<CapturedTensor> &tensors) {
  return std::any_of(tensors.begin(), tensors.end(), [](const CapturedTensor &t) {
    return t.dtype != "int64" && t.dtype != "bool" && t.dtype != "float32";
  });
}

int FormatVersionOf(const Case &c) {
  const bool attention_options =
      c.attention &&
      (c.attention->scale || c.attention->return_lse || !c.attention->kernel_options.is_null() ||
       !c.attention->qkv.empty() || !c.attention->block_mask_tensors.empty() ||
       c.attention->layout != kContiguousLayout || c.attention->from_kv_blocks);
  const bool version2 = !c.inductor.defaulted.empty() || !c.inductor.optional.empty() ||
                        !c.constants.empty() || !c.calls.empty() || UsesVersion2Dtypes(c.tensors) ||
                        attention_options || c.compile_with != kTorchCompile ||
                        c.compile_scope != kCompileApi ||
                        !c.create_block_mask.separate_full_blocks || c.api == kIndexProgram;
  return version2 ? 2 : 1;
}

json DynamicArgument(const Case &c) {
  return c.inductor.IsDefaulted("dynamic") ? json(nullptr) : json(c.inductor.dynamic);
}

json CaseToJson(const Case &c) {
  const int version = FormatVersionOf(c);
  const auto &args = c.create_block_mask;
  json block_size = args.block_size.size() == 1 ? json(args.block_size[0]) : json(args.block_size);
  auto function = [](const std::optional<MaskFunction> &f) {
    return f ? json{{"name", f->name}, {"source", f->source}} : json(nullptr);
  };
  json attention = nullptr;
  if (c.attention) {
    const auto &a = *c.attention;
    attention = json::object();
    // Version 2 gives the shape once: what the block mask already says is left out.
    const bool shared = version >= 2 && a.use_block_mask;
    if (!shared || args.batch != a.batch)
      attention["B"] = a.batch;
    attention["Hq"] = a.q_heads;
    attention["Hkv"] = a.kv_heads;
    if (!shared || args.q_len != a.q_len)
      attention["Q_LEN"] = a.q_len;
    if (!shared || args.kv_len != a.kv_len)
      attention["KV_LEN"] = a.kv_len;
    attention["E"] = a.head_dim;
    attention["Ev"] = a.value_dim;
    attention["dtype"] = a.dtype;
    attention["input_seed"] = a.input_seed;
    attention["use_block_mask"] = a.use_block_mask;
    attention["enable_gqa"] = a.enable_gqa;
    if (a.scale)
      attention["scale"] = *a.scale;
    if (a.return_lse)
      attention["return_lse"] = true;
    if (!a.kernel_options.is_null())
      attention["kernel_options"] = a.kernel_options;
    if (a.layout != kContiguousLayout)
      attention["layout"] = a.layout;
    if (!a.qkv.empty())
      attention["qkv"] = a.qkv;
    if (!a.block_mask_tensors.empty())
      attention["block_mask_tensors"] = a.block_mask_tensors;
    if (a.from_kv_blocks)
      attention["from_kv_blocks"] = {{"partial", a.from_kv_blocks->partial},
                                     {"full", a.from_kv_blocks->full}};
  }
  json document = {
      {"format_version", version},
      {"name", c.name},
      {"api", c.api},
      {"mask_mod", function(c.mask_mod)},
      {"score_mod", function(c.score_mod)},
      {"tensors", TensorsToJson(c.tensors)},
      {"create_block_mask",
       {{"B", args.batch ? json(*args.batch) : json(nullptr)},
        {"H", args.heads ? json(*args.heads) : json(nullptr)},
        {"Q_LEN", args.q_len},
        {"KV_LEN", args.kv_len},
        {"BLOCK_SIZE", block_size},
        {"device", args.device}}},
      {"attention", attention},
      {"inductor", KnobsToJson(c.inductor)},
      {"expect", {{"raises", c.expect_raises.empty() ? json(nullptr) : json(c.expect_raises)}}},
      {"provenance", c.provenance},
  };
  if (!c.constants.empty())
    document["constants"] = c.constants;
  if (c.compile_with != kTorchCompile)
    document["compile_with"] = c.compile_with;
  if (c.compile_scope != kCompileApi)
    document["compile_scope"] = c.compile_scope;
  if (c.api == kIndexProgram)
    document["index_program"] = {{"reduction", c.index_reduction}};
  if (!args.separate_full_blocks)
    document["create_block_mask"]["separate_full_blocks"] = false;
  if (!c.calls.empty()) {
    json calls = json::array();
    for (const auto &call : c.calls) {
      json entry = json::object();
      if (!call.constants.empty())
        entry["constants"] = call.constants;
      if (call.batch)
        entry["B"] = *call.batch;
      if (call.q_len)
        entry["Q_LEN"] = *call.q_len;
      if (call.kv_len)
        entry["KV_LEN"] = *call.kv_len;
      if (!call.tensors.empty())
        entry["tensors"] = TensorsToJson(call.tensors);
      if (!call.dtype.empty())
        entry["dtype"] = call.dtype;
      calls.push_back(std::move(entry));
    }
    document["calls"] = std::move(calls);
  }
  return document;
}

void SaveCaseFile(const std::filesystem::path &path, const Case &c) {
  json document = CaseToJson(c);
  auto externalise = [&](json &tensors, const std::string &prefix) {
    for (json &entry : tensors) {
      const std::string name = entry["name"].get<std::string>();
      if (entry["values"].size() <= static_cast<std::size_t>(kInlineTensorElements))
        continue;
      const CapturedTensor tensor = ReadTensor(entry, "tensor", std::nullopt);
      const std::string bytes = EncodeTensorBytes(tensor);
      const std::string file = SidecarFileName(path, prefix + name);
      support::WriteFileAtomically(path.parent_path() / file, bytes);
      entry.erase("values");
      entry["file"] = file;
      entry["sha256"] = support::Sha256Hex(bytes);
    }
  };
  externalise(document["tensors"], "");
  if (document.contains("calls"))
    for (std::size_t i = 0; i < document["calls"].size(); ++i)
      if (document["calls"][i].contains("tensors"))
        externalise(document["calls"][i]["tensors"], fmt::format("call{}.", i + 1));
  const std::string text = document.dump(2) + "\n";
  if (text.size() > kCaseFileLimit)
    throw CaseError(fmt::format("the case would be {:.1f} MiB as JSON, over the {} MiB a case file "
                                "may hold; shorten its sources",
                                text.size() / 1048576.0, kCaseFileLimit >> 20));
  support::WriteFileAtomically(path, text);
}

} // namespace corpus

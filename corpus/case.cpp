#include "corpus/case.h"
#include "corpus/api_row.h"
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

using nlohmann::json;

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
                        c.compile_scope != kCompileApi || !c.create_block_mask.separate_full_blocks;
  const bool uint8 = std::any_of(c.tensors.begin(), c.tensors.end(),
                                 [](const CapturedTensor &t) { return t.dtype == "uint8"; });
  return std::max({CorpusApiOf(c.api).format_version, uint8 ? 3 : 1, version2 ? 2 : 1});
}

json DynamicArgument(const Case &c) {
  return c.inductor.IsDefaulted("dynamic") ? json(nullptr) : json(c.inductor.dynamic);
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

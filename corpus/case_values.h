#pragma once

// A case's values as its field lists (corpus/case_fields.cpp) read them, each checked: CaseError
// names the field and says what it must be. Internal to corpus/.

#include "corpus/case.h"
#include "corpus/field_reader.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

// BLOCK_SIZE: one size, or (Q, KV).
std::vector<std::int64_t> ReadBlockSize(FieldReader &reader, const std::string &key);
// A tensor's values: inline in "values", or in the sidecar file "file" names (beside the case
// file, in `sidecar_dir`) with its "sha256".
void ReadTensorValues(FieldReader &reader, CapturedTensor &tensor,
                      const std::optional<std::filesystem::path> &sidecar_dir);
// A list of tensors, each named once; empty where the field is left out.
std::vector<CapturedTensor> ReadTensors(FieldReader &reader, const std::string &key,
                                        const std::optional<std::filesystem::path> &sidecar_dir);
// Closure constants: Python names (not keywords, not the functions' own) to numbers or bools.
nlohmann::json ReadConstants(FieldReader &reader, const std::string &key);
// Names of the case's tensors, minimum to maximum of them; empty where left out or null.
std::vector<std::string> ReadNames(FieldReader &reader, const std::string &key, std::size_t minimum,
                                   std::size_t maximum);
// The Inductor knobs of the knob table: version 1 gives every knob it knew of, version 2 leaves
// out those at Inductor's default.
InductorKnobs ReadKnobs(FieldReader &reader, const std::string &key, std::int64_t version);

} // namespace corpus

#pragma once

// What corpus/case.cpp (writing a case) and corpus/case_reader.cpp (reading one) share about its
// captured tensors. Internal to corpus/.

#include "corpus/case.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

// One captured tensor of a case's JSON, its values inline or in the sidecar file it names
// (beside the case file, in `sidecar_dir`); CaseError names `where` when it is malformed.
CapturedTensor ReadTensor(const nlohmann::json &value, const std::string &where,
                          const std::optional<std::filesystem::path> &sidecar_dir);

// Whether any tensor has a dtype format version 1 did not have (only int64, bool, float32).
bool UsesVersion2Dtypes(const std::vector<CapturedTensor> &tensors);

} // namespace corpus

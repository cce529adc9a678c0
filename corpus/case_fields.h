#pragma once

// What the case's field lists (corpus/case_fields.cpp, corpus/case_attention_fields.cpp) share.
// Internal to corpus/.

#include "corpus/case.h"
#include "corpus/record_fields.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

// What reading a case knows besides the field at hand: where its sidecars are, and the format
// version its first field gave (later fields' defaults and checks depend on it).
struct CaseReading {
  std::optional<std::filesystem::path> sidecar_dir;
  std::int64_t version = 1;
};

// CaseError unless `value` is one of `allowed`, naming the field and the choices.
void CheckOneOf(const FieldReader &reader, const std::string &key, const std::string &value,
                const std::vector<std::string> &allowed);
// CaseError unless `dtype` is one flex_attention's inputs may have.
void CheckInputDtype(const FieldReader &reader, const std::string &key, const std::string &dtype);

// flex_attention's arguments, as fields of the case: version 2 gives a shape once, so B, Q_LEN
// and KV_LEN are left out where the case's block mask says them, and read from it.
RecordFields<Case> AttentionFields(const CaseReading &reading);

} // namespace corpus

#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace fuzzer::matrix {

// Where a sanitizer's bad address lies among the tensor arguments of the call it stopped.
// `call` is the journal the replay wrote before that call (replay.py, _write_call_journal):
// each tensor argument's position, dtype, element count, data pointer and storage.
//
// An argument matches when its storage is the region the report names (`region_start`,
// `region_bytes` from "N bytes after M-byte region") or holds the address. Nothing matches a
// buffer the kernel allocated itself. The answer gives the argument's position and, from the
// entry's definition in `source_text`, its parameter name; the element the access hit,
// counted from the argument's first element; and how many elements past the storage's end.
struct BadAddress {
  std::uint64_t address = 0;
  std::optional<std::uint64_t> region_start, region_bytes;
};
std::optional<nlohmann::json> LocateBadAccess(const BadAddress &bad, const nlohmann::json &call,
                                              const std::string &entry,
                                              const std::string &source_text);

// The BadAddress of a memory-error finding's detail (parsers::MemoryErrorFinding), if the
// report named an address.
std::optional<BadAddress> BadAddressOf(const nlohmann::json &finding_detail);

// "element 10000 of out_ptr0 (argument 0, 10000 x bool), 0 past its end".
std::string DescribeBadAccess(const nlohmann::json &located);

} // namespace fuzzer::matrix

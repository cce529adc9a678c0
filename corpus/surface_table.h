#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

// Inductor's C++ op surface: the (op, dtype, path) cells a campaign's compiles reached, read
// from Inductor's own codegen by the worker (inductor_fuzz_worker/surface.py), against the
// universe the installed release has (its overrides, and per dtype whether eager supports the
// op). Cells travel as coverage features ("surface:OP:DTYPE:PATH"), so that feedback steers
// toward unreached ones, the queue keeps them and `corpus merge` unites shards' tables.
namespace corpus {

inline constexpr std::string_view kSurfaceFeaturePrefix = "surface:";

// The feature of one reached cell; path is "scalar", "vector", "vector_tail" or "cast" (op
// "to_dtype->DST" with the source dtype).
std::string SurfaceFeature(std::string_view op, std::string_view dtype, std::string_view path);

// What the installed release has: per op, whether Inductor vectorizes it natively and, per
// dtype, what Inductor's codegen emitted when the worker probed it ("supported": scalar and
// vector code, "scalar-only", "vector-only", "not-emitted": lowered to other ops) or, where
// it emitted nothing, what eager says ("promoted": computed in another dtype, "folded",
// "unsupported", "internal": no eager counterpart). A universe of an older worker, derived
// from eager alone, has "supported" and "structural" for what eager keeps.
struct SurfaceUniverse {
  struct Op {
    std::string name;
    bool vectorized = false;
    std::map<std::string, std::string> dtypes;
  };
  std::string torch_version;
  std::string derived_from; // "eager" or "eager+inductor-codegen"
  std::vector<std::string> dtypes;
  std::vector<Op> ops;
};

// The worker's reply to "surface_universe"; FormatError when it is not one.
SurfaceUniverse SurfaceUniverseFromJson(const nlohmann::json &document);
nlohmann::json SurfaceUniverseToJson(const SurfaceUniverse &universe);

// CORPUS/surface-universe.json: written when a campaign opens the corpus, read by reports.
std::filesystem::path SurfaceUniversePath(const std::filesystem::path &corpus_dir);
void WriteSurfaceUniverse(const std::filesystem::path &corpus_dir, const SurfaceUniverse &universe);
// None when the corpus has none; FormatError when it is damaged.
std::optional<SurfaceUniverse> ReadSurfaceUniverse(const std::filesystem::path &corpus_dir);

// The table of reached cells: for each (op, dtype), "none", "scalar", "vector" or "both"
// (vector_tail counts as vector), and the casts (source, destination) reached.
struct SurfaceTable {
  std::optional<SurfaceUniverse> universe;
  std::map<std::string, std::map<std::string, std::set<std::string>>> reached; // op, dtype, paths
  std::set<std::pair<std::string, std::string>> casts;

  // The cells a program can reach: (op, dtype, scalar|vector) of every path the universe
  // counts for the (op, dtype), and those reached beyond it.
  std::size_t SupportedCells() const;
  std::size_t ReachedSupportedCells() const;
  std::string StateOf(const std::string &op, const std::string &dtype) const; // none/scalar/..
  nlohmann::json ToJson() const;
};

// The paths ("scalar", "vector") a universe's state of an (op, dtype) counts as cells.
std::set<std::string> CountedPaths(const std::string &state);

SurfaceTable SurfaceTableOf(const std::set<std::string> &features,
                            const std::optional<SurfaceUniverse> &universe);

} // namespace corpus

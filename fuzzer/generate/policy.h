#pragma once

#include "fuzzer/generate/random.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>

namespace fuzzer::generate {

// Every probability and weight the generator uses, in one place: the default policy, or one
// loaded from JSON (`--policy FILE`, which overrides the entries it names). Weighted choices are
// categories of named options; everything else is a named number.
struct GenerationPolicy {
  std::map<std::string, std::map<std::string, double>> weights;
  std::map<std::string, double> numbers;

  static GenerationPolicy Default();
  // Overrides entries from a JSON object {"weights": {...}, "numbers": {...}}; rejects names
  // the default policy does not have, and negative values.
  void Override(const nlohmann::json &overrides);
  nlohmann::json ToJson() const;
  std::string Sha256() const; // of the canonical JSON: recorded in every generated case

  const std::string &Draw(Random &random, const std::string &category) const;
  double Number(const std::string &name) const;
  bool Chance(Random &random, const std::string &name) const { return random.Chance(Number(name)); }
};

GenerationPolicy LoadPolicyFile(const std::filesystem::path &path);

} // namespace fuzzer::generate

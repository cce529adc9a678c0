#include "fuzzer/campaign/seed_pool.h"

#include "support/sha256.h"
#include "support/text_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>

namespace fuzzer::campaign {

namespace fs = std::filesystem;
using nlohmann::json;

SeedPool::SeedPool(fs::path queue_dir) : queue_dir_(std::move(queue_dir)) {
  fs::create_directories(queue_dir_);
  std::vector<fs::path> files;
  for (const auto &file : fs::directory_iterator(queue_dir_))
    if (file.path().extension() == ".json")
      files.push_back(file.path());
  std::sort(files.begin(), files.end()); // the same order on every load
  for (const auto &file : files) {
    try {
      const json document = json::parse(support::ReadTextFile(file, "queue entry", 64 << 20));
      PoolEntry entry{.id = file.stem().string(),
                      .c = corpus::CaseFromJson(document.at("case")),
                      .new_features = document.at("features").get<std::vector<std::string>>()};
      seen_.insert(entry.new_features.begin(), entry.new_features.end());
      entries_.push_back(std::move(entry));
    } catch (const std::exception &error) {
      std::cerr << fmt::format("warning: queue entry {} is unreadable and is left out ({})\n",
                               file.string(), error.what());
    }
  }
}

std::vector<std::string> SeedPool::Offer(const corpus::Case &c,
                                         const std::set<std::string> &features) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> fresh;
  for (const auto &feature : features)
    if (seen_.insert(feature).second)
      fresh.push_back(feature);
  if (fresh.empty())
    return fresh;
  const json case_json = corpus::CaseToJson(c);
  PoolEntry entry{.id = "q-" + support::Sha256Hex(case_json.dump()).substr(0, 16),
                  .c = c,
                  .new_features = fresh};
  support::WriteFileAtomically(queue_dir_ / (entry.id + ".json"), json{{"format_version", 1},
                                                                       {"id", entry.id},
                                                                       {"features", fresh},
                                                                       {"all_features", features},
                                                                       {"case", case_json}}
                                                                          .dump(1) +
                                                                      "\n");
  entries_.push_back(std::move(entry));
  return fresh;
}

std::optional<PoolEntry> SeedPool::Pick(generate::Random &random) {
  std::lock_guard lock(mutex_);
  if (entries_.empty())
    return std::nullopt;
  std::vector<double> weights;
  for (const auto &entry : entries_)
    weights.push_back((1.0 + static_cast<double>(entry.new_features.size())) /
                      (1.0 + static_cast<double>(entry.picked)));
  PoolEntry &chosen = entries_[random.Weighted(weights)];
  ++chosen.picked;
  return chosen;
}

std::size_t SeedPool::Size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::size_t SeedPool::FeaturesSeen() const {
  std::lock_guard lock(mutex_);
  return seen_.size();
}

std::set<std::string> SeedPool::Features() const {
  std::lock_guard lock(mutex_);
  return seen_;
}

} // namespace fuzzer::campaign

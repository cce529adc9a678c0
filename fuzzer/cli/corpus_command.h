#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace fuzzer::cli {

struct CorpusOptions {
  std::string action; // list, show, merge
  std::filesystem::path corpus = "fuzz-corpus";
  std::string id;                             // show
  std::vector<std::filesystem::path> sources; // merge
  std::filesystem::path into;                 // merge
  std::filesystem::path report_dir;           // report
  std::filesystem::path known_issues;         // report
  bool json = false;
};

// `inductor-fuzz corpus list|show ID|merge SRC... --into DIR|report --report DIR`.
// `report` writes a campaign's reports for a whole corpus (e.g. after merging shards): every
// finding no known issue names counts as new.
int CorpusCommand(const CorpusOptions &options, std::ostream &out);

} // namespace fuzzer::cli

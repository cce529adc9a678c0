#pragma once

#include "support/tool_paths.h"

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace workflows {

struct CorpusOptions {
  std::string action; // list, show, merge
  std::filesystem::path corpus = "fuzz-corpus";
  std::string id;                             // show
  std::vector<std::filesystem::path> sources; // merge
  std::filesystem::path into;                 // merge
  std::filesystem::path report_dir;           // report
  std::filesystem::path known_issues;         // report
  std::filesystem::path since;                // report: new against this earlier corpus
  bool json = false;
  bool signatures = false;        // list: per signature, not per bug
  std::filesystem::path out_file; // issue: also written here
  std::filesystem::path upstream; // issue: a JSON export of PyTorch's issues, for duplicates
};

// `inductor-fuzz corpus list|show ID|merge SRC... --into DIR|report --report DIR|migrate`.
// `list` and `show` speak of bugs (corpus/bugs.h). `report` writes a campaign's reports for a
// whole corpus (e.g. after merging shards): every bug no known issue names counts as new, or,
// with `since`, every such bug none of whose signatures that earlier corpus held.
// `migrate` re-signs a corpus an older version wrote (opening it does the same).
int CorpusAction(const CorpusOptions &options, std::ostream &out);

// `inductor-fuzz corpus issue ID`: the bug report draft (fuzzer/campaign/issue_draft.h) of a
// bug or finding of the corpus (from its delivery, else its smallest case, run now), or of a
// known issue (from its `reduced` folder; its repro runs now on the venv's torch).
int CorpusIssue(const CorpusOptions &options, const support::ToolPaths &paths, std::ostream &out);

} // namespace workflows

#include "cli/commands.h"
#include "corpus/finding_kinds.h"
#include "support/errors.h"
#include "workflows/capture_import.h"
#include "workflows/corpus_actions.h"
#include <CLI/CLI.hpp>

#include <memory>

namespace cli {

// `corpus`: a corpus's bugs, merges, reports and migrations.
Command AddCorpusCommand(CLI::App &app) {
  struct State {
    workflows::CorpusOptions options;
  };
  auto state = std::make_shared<State>();
  auto &options = state->options;
  auto *command = app.add_subcommand(
      "corpus", "Look into a campaign's corpus: its bugs (each one cause, holding the signatures "
                "and detectors that saw it), merge shards' corpora, or migrate one an older "
                "inductor-fuzz wrote (opening it migrates it too).\n"
                "Example: inductor-fuzz corpus list --corpus fuzz-corpus\n"
                "Also: inductor-fuzz corpus show bug-1f2e; inductor-fuzz corpus issue bug-1f2e (a "
                "bug report in PyTorch's template, from what `fuzz --reduce` made of it; also a "
                "known issue's id); inductor-fuzz corpus list --signatures; "
                "inductor-fuzz corpus merge yesterday shard-0 shard-1 --into tonight; "
                "inductor-fuzz corpus report --corpus tonight --since yesterday --report report; "
                "inductor-fuzz corpus migrate --corpus old; "
                "inductor-fuzz corpus import night-gpu --corpus fuzz-corpus (the cases a "
                "portable capture ran elsewhere, python -m inductor_fuzz_capture --cases: each "
                "finding stored as run-case would have made it there); inductor-fuzz corpus "
                "kinds (every finding kind: its detector, what it means, the facts its key may "
                "name, as a Markdown table)");
  command
      ->add_option("action", options.action,
                   "list, show, issue, merge, report, migrate, import or kinds")
      ->required()
      ->check(CLI::IsMember(
          {"list", "show", "issue", "merge", "report", "migrate", "import", "kinds"}));
  command->add_option("args", options.sources,
                      "show, issue: a bug id or a signature's finding id (or a prefix); "
                      "issue: also a known issue's id; merge: the corpora to merge; import: the "
                      "capture folder");
  command->add_option("--out", options.out_file, "issue: also write the draft to this file");
  command->add_option("--upstream", options.upstream,
                      "issue: a JSON export of PyTorch's issues (gh issue list --repo "
                      "pytorch/pytorch --json number,title,body,state --limit 5000): the draft "
                      "lists those that hold most of the bug's key terms");
  command->add_flag("--signatures", options.signatures,
                    "list: one line per signature instead of per bug");
  command->add_option("--corpus", options.corpus, "The corpus to read")->capture_default_str();
  command->add_option("--into", options.into, "merge: the corpus to merge into");
  command->add_flag("--json", options.json, "list: print JSON");
  command->add_option("--report", options.report_dir,
                      "report: write summary.json, junit.xml, findings.sarif and "
                      "report.html for the whole corpus here");
  command->add_option("--since", options.since,
                      "report: the corpus of the night before (or any earlier copy): a bug is new "
                      "only when none of its signatures was in it, and summary.json's \"since\" "
                      "lists the new bugs, those seen again and the new codegen features");
  command->add_option("--known-issues", options.known_issues,
                      "report: known issues (default: the project's)");
  return {command, [state](const Invocation &invocation) {
            auto options = state->options;
            if (options.action == "kinds") {
              invocation.out << corpus::KindsTable();
              return 0;
            }
            if (options.action == "show" || options.action == "issue") {
              if (options.sources.size() != 1)
                throw support::InputError(
                    options.action == "show"
                        ? "corpus show takes one bug id or finding id"
                        : "corpus issue takes one bug id, finding id or known-issue id");
              options.id = options.sources.front().string();
            }
            if (options.known_issues.empty())
              options.known_issues = invocation.paths.project_root / "corpus" / "known-issues.json";
            if (options.action == "issue")
              return workflows::CorpusIssue(options, invocation.paths, invocation.out);
            if (options.action == "import") {
              if (options.sources.size() != 1)
                throw support::InputError("corpus import takes one capture folder");
              return workflows::ImportCapture({.capture = options.sources.front(),
                                               .corpus = options.corpus,
                                               .command_line = invocation.command_line},
                                              invocation.out);
            }
            return workflows::CorpusAction(options, invocation.out);
          }};
}

} // namespace cli

#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

#include <fmt/format.h>

namespace corpus::kinds::exception {
namespace {

std::string Key(const Finding &finding) {
  const std::string &message = Fact(finding, "message");
  if (auto symbol = MissingSymbol(message))
    return *symbol;
  std::string key =
      fmt::format("exception|type={}|message={}", Fact(finding, "type"), ProgramFree(message));
  if (Words(MessageTemplate(message)) < 3)
    key += "|frame=" + NormaliseFact("frame", Fact(finding, "frame"));
  return key;
}

// The innermost exception's class and, as the signature normalises it, its message: the type
// alone is not the bug (assert_close raises AssertionError too). A known issue's pattern gives
// what comes before its first '*'.
bool ShowsInRepro(const ReproRun &run, const ReproExpectation &expected) {
  const auto &facts = expected.facts;
  std::string type = facts.contains("type") ? facts.at("type") : "";
  type = type.substr(type.rfind('.') + 1);
  const std::string message =
      facts.contains("message")
          ? facts.at("message").substr(0, facts.at("message").find('*')).substr(0, 40)
          : std::string();
  return Failed(run) && !type.empty() && run.output.find(type) != std::string::npos &&
         (message.empty() || MessageTemplate(run.output).find(message) != std::string::npos);
}

// "RuntimeError: <message>" in place of the kind's words.
std::string TitleWords(std::string_view title, const std::map<std::string, std::string> &facts) {
  std::string type = TitleFact(facts, "type");
  type = type.substr(type.rfind('.') == std::string::npos ? 0 : type.rfind('.') + 1);
  const std::string message = TitleFact(facts, "message");
  if (type.empty())
    return std::string(title);
  return type + (message.empty() ? "" : ": " + message);
}

} // namespace

FindingKindRow Row() {
  return {.kind = FindingKind::kException,
          .name = "exception",
          .detector = Detector::kWorker,
          .meaning =
              "torch raised something other than a failed C++ build (a lowering error, a missing "
              "meta kernel, ...): the innermost cause's type, message and raising torch frame",
          .facts = {"api", "type", "message", "frame"},
          .delivery_order = 0,
          .title = "torch.compile raises",
          .expected = kRunsAsEager,
          .key = &Key,
          .shows_in_repro = &ShowsInRepro,
          .title_words = &TitleWords,
          .draft_excerpt = DraftExcerpt::kException,
          .unrolls = true};
}

} // namespace corpus::kinds::exception

#include "corpus/kinds/kinds.h"

#include "corpus/bug_key.h"
#include "corpus/kinds/key_parts.h"

#include <fmt/format.h>

#include <regex>
#include <sstream>

namespace corpus::kinds::compile_error {
namespace {

std::string Key(const Finding &finding) {
  return fmt::format("compile-error|family={}|message={}|option={}", Fact(finding, "family"),
                     RedeclarationShape(ProgramFree(Fact(finding, "message"))),
                     Fact(finding, "option"));
}

// Whether a repro that catches the compiler's error and prints it (a hand-written one) prints
// the signature's message: each fixed part of it (a known issue's pattern has * between them),
// with the compiler's typographic quotes read as plain ones.
bool SaysTheMessage(const std::string &output, const std::map<std::string, std::string> &facts) {
  const auto message = facts.find("message");
  if (message == facts.end() || message->second.empty())
    return false;
  std::string plain = output;
  for (const std::string quote : {"\u2018", "\u2019"})
    for (auto at = plain.find(quote); at != std::string::npos; at = plain.find(quote))
      plain.replace(at, quote.size(), "'");
  plain = MessageTemplate(plain);
  std::size_t parts = 0;
  std::istringstream pieces(message->second);
  for (std::string piece; std::getline(pieces, piece, '*');)
    if (piece.size() >= 4) {
      ++parts;
      if (plain.find(piece) == std::string::npos)
        return false;
    }
  return parts > 0;
}

bool ShowsInRepro(const ReproRun &run, const ReproExpectation &expected) {
  return Failed(run) && (run.output.find("CppCompileError") != std::string::npos ||
                         SaysTheMessage(run.output, expected.facts));
}

// "C++ compile error: <message>", without g++'s " {aka 'float*'}", which spells a type out
// again.
std::string TitleWords(std::string_view title, const std::map<std::string, std::string> &facts) {
  static const std::regex aka(R"( \{aka [^}]*\})");
  const std::string message = std::regex_replace(TitleFact(facts, "message"), aka, "");
  return std::string(title) + (message.empty() ? "" : ": " + message);
}

} // namespace

FindingKindRow Row() {
  return {.kind = FindingKind::kCompileError,
          .name = "compile-error",
          .detector = Detector::kWorker,
          .meaning =
              "Inductor's own build of a generated TU failed; keyed by the parsed diagnostic",
          .facts = {"family", "message", "option"},
          .in_one_tu = true,
          .delivery_order = 0,
          .title = "C++ compile error",
          .expected = "the C++ Inductor generates compiles, and the compiled call returns what "
                      "eager does.",
          .key = &Key,
          .shows_in_repro = &ShowsInRepro,
          .title_words = &TitleWords,
          .draft_excerpt = DraftExcerpt::kCompileError,
          .unrolls = true};
}

} // namespace corpus::kinds::compile_error

#include "corpus/kinds/kinds.h"

#include "corpus/kinds/key_parts.h"

#include <fmt/format.h>

#include <algorithm>

namespace corpus::kinds::memory_error {
namespace {

std::string Key(const Finding &finding) {
  return fmt::format("memory-error|kernel={}|statement={}", NameKey(Fact(finding, "kernel")),
                     ProgramFree(Fact(finding, "statement")));
}

// The sanitizer's report in a kernel, with the signature the finding has.
bool ShowsInRepro(const ReproRun &run, const ReproExpectation &expected) {
  return std::find(run.sanitizer_signatures.begin(), run.sanitizer_signatures.end(),
                   expected.signature) != run.sanitizer_signatures.end();
}

// Only a sanitized run sees it.
ReduceForm Sanitized(const ReproExpectation &) { return ReduceForm::kSanitized; }

// "... (READ of size 4)": the access the sanitizer caught.
std::string TitleWords(std::string_view title, const std::map<std::string, std::string> &facts) {
  const auto access = TitleFact(facts, "access");
  return access.empty() ? std::string(title) : fmt::format("{} ({})", title, access);
}

} // namespace

FindingKindRow Row() {
  return {.kind = FindingKind::kMemoryError,
          .name = "memory-error",
          .detector = Detector::kSanitizer,
          .meaning =
              "ASan or UBSan stops a kernel built with it (in a sanitized worker, or rebuilt by "
              "the matrix and replayed on its recorded calls), located in the generated source",
          .facts = {"error", "access", "kernel", "statement"},
          .delivery_order = 2,
          .title = "generated kernel accesses memory out of bounds",
          .expected = kRunsAsEager,
          .key = &Key,
          .shows_in_repro = &ShowsInRepro,
          .repro_form = ReproForm::kSanitized,
          .reduce_form = &Sanitized,
          .title_words = &TitleWords};
}

} // namespace corpus::kinds::memory_error

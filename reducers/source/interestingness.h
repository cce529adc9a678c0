#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace reducers {

// What a candidate source must keep. Observe() runs the test on a text and returns the
// signature it shows (nothing: it does not fail at all); a candidate is kept when that is the
// signature of the untouched source. Thread-safe across slots: each of the reducer's parallel
// evaluations has a slot of its own (scratch files, a Clang instance).
class InterestingnessTest {
public:
  virtual ~InterestingnessTest() = default;
  virtual std::optional<std::string> Observe(const std::string &text, unsigned slot) = 0;
  // What the test checks, for people: "compile-error|family=gcc|message=...", or the script.
  virtual std::string Describe() const = 0;
  // The body of repro.sh: the one command that shows the failure on `reduced` (an absolute path).
  virtual std::string ReproCommand(const std::filesystem::path &reduced) const = 0;
};

// The user's own test, C-Vise's convention: SCRIPT runs in a folder holding the candidate as
// `file_name`; exit 0 means the candidate keeps what matters.
std::unique_ptr<InterestingnessTest> MakeScriptTest(std::filesystem::path script,
                                                    std::string file_name,
                                                    std::filesystem::path scratch,
                                                    std::chrono::seconds timeout);

// A compile command (argv[0] the compiler, argv[source_index] the TU): the first error the
// compiler prints, as a compile-error signature. Front-end errors are checked with
// -fsyntax-only when that shows the same error, which is most of the cost saved.
std::unique_ptr<InterestingnessTest> MakeCompilerDiagnosticTest(std::vector<std::string> argv,
                                                                std::size_t source_index,
                                                                std::filesystem::path scratch,
                                                                std::chrono::seconds timeout);

// Our Clang analysis (what `check` runs, with its precompiled prefix, in-process): the
// signature of a conflicting declaration or another error it reports. `wanted`: keep this one
// among several; empty: the first conflict, else the first error.
std::unique_ptr<InterestingnessTest> MakeStaticFindingTest(std::vector<std::string> clang_args,
                                                           std::string wanted,
                                                           std::filesystem::path scratch,
                                                           std::filesystem::path prefix_cache_dir);

// The source a compile command compiles: the index in argv of its one C++ input. An
// InputError when there is none or more than one.
std::size_t SourceArgument(const std::vector<std::string> &argv);

} // namespace reducers

#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
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
  // For people, once the untouched text was observed: how candidates are tested (a compiler's
  // precompiled prefix, or why there is none), a line each; empty: nothing to say.
  virtual std::string Notes() const { return {}; }
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

// One compiler's command for the TU (its C++ source is the one the reducer rewrites), named as the
// compiler matrix names it: "g++-12", "clang++-19".
struct CompilerCommand {
  std::string name;
  std::vector<std::string> argv;
};

// What one compiler made of a candidate, for the divergence's signature.
struct CompilerVerdict {
  std::string compiler;
  bool built = false;
  bool crashed = false;
  std::string first_error; // the first error's message (empty when built)
};

// The compilers disagree: some build the TU and some fail (or crash). `signature` turns the
// verdicts into the divergence's signature (the matrix's, so that a reduced TU keeps the
// finding's); a candidate on which all agree shows none. Each compiler runs the way the
// compiler-diagnostic test runs one: the front end alone and a precompiled prefix where the
// untouched TU's verdict stays the same. No failing compiler may report more errors than on the
// untouched TU.
std::unique_ptr<InterestingnessTest> MakeCompilerDivergenceTest(
    std::vector<CompilerCommand> commands, std::filesystem::path scratch,
    std::chrono::seconds timeout,
    std::function<std::string(const std::vector<CompilerVerdict> &)> signature);

// What one compiler's program did, against the first compiler's (the reference).
struct ProgramVerdict {
  std::string compiler;
  std::string runtime; // "same", "differs" (other output or exit), "crashed", "timeout"
};

// The programs the compilers build from the TU print differently (a runtime divergence): each
// command builds a program (it links), which runs twice in the candidate's folder; its output
// and exit status are compared with the first compiler's. A candidate that fails to build
// anywhere, or whose program prints differently from one run to the next, shows none. The
// precompiled prefix is used as for a compile test; builds are never front-end-only.
std::unique_ptr<InterestingnessTest> MakeRuntimeDivergenceTest(
    std::vector<CompilerCommand> commands, std::filesystem::path scratch,
    std::chrono::seconds timeout,
    std::function<std::string(const std::vector<ProgramVerdict> &)> signature);

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

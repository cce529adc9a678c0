#include "reducers/source/source_reducer.h"

#include "reducers/source/syntax_edits.h"
#include "support/child_process.h"
#include "support/errors.h"
#include "support/scratch_dir.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <thread>
#include <unordered_set>

namespace reducers {
namespace {

using Clock = std::chrono::steady_clock;

// Candidates the gate would drop that are tested anyway, to learn whether the test agrees.
constexpr unsigned kGateAudits = 8;
namespace fs = std::filesystem;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class Search {
public:
  Search(InterestingnessTest &test, const SourceReduceOptions &options,
         const SourcePassContext &context, const std::atomic<bool> &stop,
         const SourceReduceCallbacks &callbacks, SourceReduction &result)
      : test_(test), options_(options), context_(context), stop_(stop), callbacks_(callbacks),
        result_(result), started_(Clock::now()), gate_on_(options.gate_on_parse_errors) {}

  void Run() {
    bool accepted_in_round = true;
    while (accepted_in_round && !stop_) {
      accepted_in_round = false;
      ++result_.rounds;
      for (const SourcePass *pass : options_.passes) {
        if (stop_)
          break;
        accepted_in_round |= RunPass(*pass);
      }
    }
    result_.interrupted = stop_.load();
    result_.seconds = SecondsSince(started_);
    result_.test_seconds = test_microseconds_ * 1e-6;
  }

private:
  bool RunPass(const SourcePass &pass) {
    bool accepted_any = false;
    std::size_t index = 0;
    while (!stop_) {
      const std::string &text = result_.reduced;
      const auto edits = pass.candidates(text, context_);
      // The next `jobs` candidates from `index` that are new and smaller (or, for a pass that
      // may keep the size, name less). With the gate on, a
      // window of twice that many is parsed side by side first, and those it drops are skipped.
      const std::size_t jobs = std::max(1u, options_.jobs);
      std::vector<std::string> batch;
      std::vector<std::size_t> batch_index;
      std::vector<char> audited;
      while (batch.size() < jobs && index < edits.size() && !stop_) {
        std::vector<std::string> window;
        std::vector<std::size_t> window_index;
        std::unordered_set<std::size_t> in_window;
        const std::size_t wanted = gate_on_ ? 2 * jobs : jobs - batch.size();
        for (; index < edits.size() && window.size() < wanted; ++index) {
          const auto &edit = edits[index];
          if (!pass.grows && (edit.replacement.size() > edit.length ||
                              (edit.replacement.size() == edit.length && !pass.may_keep_size)))
            continue;
          std::string candidate = ApplyEdit(text, edit);
          const std::size_t hash = std::hash<std::string>{}(candidate);
          if (candidate == text || tested_.contains(hash) || !in_window.insert(hash).second)
            continue;
          window.push_back(std::move(candidate));
          window_index.push_back(index);
        }
        const auto gated = Gate(text, window);
        for (std::size_t i = 0; i < window.size(); ++i) {
          if (batch.size() == jobs) {
            index = window_index[i]; // not taken: proposed again next time
            break;
          }
          tested_.insert(std::hash<std::string>{}(window[i]));
          if (gated[i] && result_.gate_audits >= kGateAudits) {
            ++result_.gated;
            continue;
          }
          result_.gate_audits += gated[i];
          batch.push_back(std::move(window[i]));
          batch_index.push_back(window_index[i]);
          audited.push_back(gated[i]);
        }
        Report(pass, edits.size() - std::min(edits.size(), index)); // windows the gate emptied
      }
      if (batch.empty())
        return accepted_any;
      const auto keeps = TestBatch(batch);
      for (std::size_t i = 0; i < batch.size(); ++i)
        if (audited[i] && keeps[i] && gate_on_) {
          // The test keeps what Clang calls broken (it greps, say): the gate would lose steps.
          gate_on_ = false;
          result_.gate_refuted = true;
          if (callbacks_.progress)
            callbacks_.progress("reduce: the test kept a candidate with more Clang errors than "
                                "its text: every candidate is tested from now on");
        }
      Report(pass, edits.size() - std::min(edits.size(), index));
      const auto kept = std::find(keeps.begin(), keeps.end(), 1);
      if (kept == keeps.end())
        continue;
      // The text changed: the pass's candidates are proposed again, from where this one was.
      const auto at = static_cast<std::size_t>(kept - keeps.begin());
      result_.reduced = std::move(batch[at]);
      index = batch_index[at];
      ++result_.steps;
      ++result_.accepted_by_pass[std::string(pass.name)];
      accepted_any = true;
      if (callbacks_.improved)
        callbacks_.improved(result_);
      Report(pass, 0, true);
    }
    return accepted_any;
  }

  // Which candidates have more Clang errors than their text: parsed side by side, `jobs` at a
  // time. None while the gate is off.
  std::vector<char> Gate(const std::string &text, const std::vector<std::string> &candidates) {
    std::vector<char> gated(candidates.size(), 0);
    if (!gate_on_ || candidates.empty())
      return gated;
    const std::size_t errors = context_.syntax->ErrorsIn(text);
    const std::size_t threads_wanted =
        std::min<std::size_t>(std::max(1u, options_.jobs), candidates.size());
    std::vector<std::thread> threads;
    auto count = [&](std::size_t first) {
      for (std::size_t i = first; i < candidates.size(); i += threads_wanted)
        gated[i] = context_.syntax->ErrorsIn(candidates[i]) > errors;
    };
    for (std::size_t t = 1; t < threads_wanted; ++t)
      threads.emplace_back(count, t);
    count(0);
    for (auto &thread : threads)
      thread.join();
    return gated;
  }

  // Tests the candidates side by side: which keep the signature.
  std::vector<char> TestBatch(const std::vector<std::string> &batch) {
    std::vector<char> keeps(batch.size(), 0);
    std::vector<std::thread> threads;
    for (std::size_t i = 1; i < batch.size(); ++i)
      threads.emplace_back([&, i] { keeps[i] = Keeps(batch[i], static_cast<unsigned>(i)); });
    keeps[0] = Keeps(batch[0], 0);
    for (auto &thread : threads)
      thread.join();
    result_.tried += static_cast<unsigned>(batch.size());
    return keeps;
  }

  bool Keeps(const std::string &text, unsigned slot) {
    const auto start = Clock::now();
    const bool keeps = test_.Observe(text, slot) == result_.signature;
    test_microseconds_ +=
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
    return keeps;
  }

  void Report(const SourcePass &pass, std::size_t left, bool force = false) {
    if (!callbacks_.progress)
      return;
    const auto now = Clock::now();
    if (!force && now - last_report_ < std::chrono::seconds(2))
      return;
    last_report_ = now;
    const double seconds = SecondsSince(started_);
    callbacks_.progress(fmt::format(
        "reduce: {} bytes, {} lines; {} steps, {} candidates ({:.1f}/s, {:.2f} s each{}), {:.0f} "
        "s; round {}, {} ({} left)",
        result_.reduced.size(), CountLines(result_.reduced), result_.steps, result_.tried,
        seconds > 0 ? result_.tried / seconds : 0.0,
        result_.tried ? test_microseconds_ * 1e-6 / result_.tried : 0.0,
        result_.gated ? fmt::format(", {} dropped by Clang", result_.gated) : "", seconds,
        result_.rounds, pass.name, left));
  }

  InterestingnessTest &test_;
  const SourceReduceOptions &options_;
  const SourcePassContext &context_;
  const std::atomic<bool> &stop_;
  const SourceReduceCallbacks &callbacks_;
  SourceReduction &result_;
  Clock::time_point started_;
  Clock::time_point last_report_{};
  std::unordered_set<std::size_t> tested_;
  std::atomic<long long> test_microseconds_{0}; // the test's time over every candidate
  bool gate_on_;
};

std::optional<std::string> Format(const fs::path &formatter, const std::string &text) {
  support::ScratchDir scratch("format");
  const fs::path file = scratch.path() / "reduced.cpp";
  std::ofstream(file, std::ios::binary) << text;
  const auto result =
      support::RunCommand({formatter.string(), "--style=LLVM", file.string()},
                          {.stderr_file = scratch.path() / "stderr"}, std::chrono::seconds(60));
  if (!result.status.Succeeded() || result.output.empty())
    return std::nullopt;
  return result.output;
}

} // namespace

SourceReduction ReduceSource(const std::string &text, InterestingnessTest &test,
                             const SourceReduceOptions &options, const SourcePassContext &context,
                             const std::atomic<bool> &stop,
                             const SourceReduceCallbacks &callbacks) {
  SourceReduction result;
  result.original = text;
  result.reduced = text;
  const auto signature = test.Observe(text, 0);
  if (!signature)
    throw support::InputError(
        fmt::format("the untouched source does not fail ({}): nothing to reduce; check the "
                    "command or the interestingness script on the original first",
                    test.Describe()));
  result.signature = *signature;
  if (callbacks.progress)
    callbacks.progress(fmt::format("reduce: the untouched source fails: {}", result.signature));
  Search(test, options, context, stop, callbacks, result).Run();
  // Formatted for people, if that keeps the failure (a formatted line may move a diagnostic).
  if (options.formatter && !result.interrupted)
    if (auto formatted = Format(*options.formatter, result.reduced);
        formatted && *formatted != result.reduced && test.Observe(*formatted, 0) == signature) {
      result.reduced = std::move(*formatted);
      result.formatted = true;
      ++result.tried;
    }
  return result;
}

} // namespace reducers

#include "fuzzer/campaign/probe.h"

#include "corpus/finding_kinds.h"
#include "corpus/finding_store.h"
#include "corpus/knobs.h"

#include <fmt/format.h>

#include <algorithm>

namespace fuzzer::campaign {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

bool IsSixteenBit(const std::string &dtype) { return dtype == "float16" || dtype == "bfloat16"; }

// A knob's value as a key names it. Thread counts above one are one setting: a bug that needs
// several threads needs no particular number of them.
std::string KnobValueName(const corpus::KnobSpec &knob, const corpus::InductorKnobs &knobs) {
  if (knob.flag)
    return knobs.*knob.flag ? "true" : "false";
  if (knob.number) {
    const int value = knobs.*knob.number;
    if (knob.name == "cpp.threads" && value > 1)
      return ">1";
    return std::to_string(value);
  }
  if (knob.optional_number) {
    const auto value = knobs.*knob.optional_number;
    return value ? std::to_string(*value) : "auto";
  }
  return "";
}

} // namespace

bool IsProbedKind(corpus::FindingKind kind) { return corpus::RowOf(kind).probed; }

std::vector<ProbeSetting> ProbeSettings(const corpus::Case &c) {
  std::vector<ProbeSetting> settings;
  const corpus::InductorKnobs defaults;
  if (c.attention && IsSixteenBit(c.attention->dtype)) {
    corpus::Case reverted = c;
    reverted.attention->dtype = "float32";
    for (auto &call : reverted.calls)
      if (IsSixteenBit(call.dtype))
        call.dtype = "float32";
    settings.push_back({"dtype=16-bit", std::move(reverted)});
  }
  if (!c.inductor.IsDefaulted("dynamic") && c.inductor.dynamic) {
    corpus::Case reverted = c;
    reverted.inductor.dynamic = false;
    settings.push_back({"dynamic=true", std::move(reverted)});
  }
  if (!c.inductor.IsDefaulted("cpp_wrapper") && c.inductor.cpp_wrapper) {
    corpus::Case reverted = c;
    reverted.inductor.cpp_wrapper = false;
    settings.push_back({"cpp_wrapper=true", std::move(reverted)});
  }
  if (c.compile_with == corpus::kAoti) {
    corpus::Case reverted = c;
    reverted.compile_with = corpus::kTorchCompile;
    settings.push_back({"compile_with=aoti", std::move(reverted)});
  }
  // The ways issue 47 builds a block mask and compiles: each back to create_block_mask's own
  // mask and torch.compile of the API. A bug of the rebuilt mask's tensors then says so in its key.
  if (c.attention && c.attention->from_kv_blocks) {
    corpus::Case reverted = c;
    reverted.attention->from_kv_blocks.reset();
    settings.push_back({"block_mask=from_kv_blocks", std::move(reverted)});
  }
  if (!c.create_block_mask.separate_full_blocks) {
    corpus::Case reverted = c;
    reverted.create_block_mask.separate_full_blocks = true;
    settings.push_back({"separate_full_blocks=false", std::move(reverted)});
  }
  if (c.compile_scope != corpus::kCompileApi && c.compile_with != corpus::kAoti) {
    corpus::Case reverted = c;
    reverted.compile_scope = corpus::kCompileApi;
    settings.push_back({"compile_scope=" + c.compile_scope, std::move(reverted)});
  }
  // A decode shape (one query row) to a prefill one, where the case makes its own inputs; a
  // later call that keeps one query row (or sets none) gets the prefill shape too.
  const bool calls_decode = std::all_of(c.calls.begin(), c.calls.end(), [](const auto &call) {
    return !call.q_len || *call.q_len == 1;
  });
  if (c.attention && c.attention->q_len == 1 && c.attention->qkv.empty() &&
      c.attention->block_mask_tensors.empty() && calls_decode) {
    corpus::Case reverted = c;
    reverted.attention->q_len = 16;
    reverted.create_block_mask.q_len = 16;
    for (auto &call : reverted.calls)
      if (call.q_len)
        call.q_len = 16;
    settings.push_back({"shape=decode", std::move(reverted)});
  }
  if (c.attention && c.attention->layout != corpus::kContiguousLayout) {
    corpus::Case reverted = c;
    reverted.attention->layout = corpus::kContiguousLayout;
    settings.push_back({"layout=" + c.attention->layout, std::move(reverted)});
  }
  for (const auto &knob : corpus::InductorKnobTable()) {
    const std::string name(knob.name);
    if (name == "dynamic" || name == "cpp_wrapper")
      continue; // above
    if (knob.optional) {
      const auto set = c.inductor.optional.find(name);
      if (set == c.inductor.optional.end())
        continue;
      corpus::Case reverted = c;
      reverted.inductor.optional.erase(name);
      const std::string value =
          set->second.is_string() ? set->second.get<std::string>() : set->second.dump();
      settings.push_back({fmt::format("{}={}", name, value), std::move(reverted)});
      continue;
    }
    if (c.inductor.IsDefaulted(name))
      continue;
    // Threads and the vector width are Inductor's own choice by default: any value a case sets
    // is a setting. A flag is one when it is not the default.
    const bool machine_default = knob.number || knob.optional_number;
    if (!machine_default && KnobValueName(knob, c.inductor) == KnobValueName(knob, defaults))
      continue;
    if (knob.optional_number && !(c.inductor.*knob.optional_number))
      continue; // "auto" is the default already
    corpus::Case reverted = c;
    if (machine_default)
      reverted.inductor.defaulted.insert(name);
    else
      reverted.inductor.*knob.flag = defaults.*knob.flag;
    const std::string value = KnobValueName(knob, c.inductor);
    settings.push_back({value.starts_with('>') ? name + value : fmt::format("{}={}", name, value),
                        std::move(reverted)});
  }
  return settings;
}

namespace {

// Whether an earlier probe's rerun of `setting` failed the same: the setting did not matter.
bool ShownIrrelevant(const json *earlier, const std::string &setting) {
  if (!earlier)
    return false;
  for (const auto &run : earlier->value("runs", json::array()))
    if (run.is_object() && run.value("setting", "") == setting)
      return run.value("outcome", "") == "fails-the-same";
  return false;
}

} // namespace

json ProbeFinding(const corpus::Case &c, const corpus::Finding &finding, const ProbeRunner &run,
                  const ProbeOptions &options, std::vector<RevealedFailure> *revealed,
                  const json *earlier) {
  const auto settings = ProbeSettings(c);
  json record = {{"needs", json::array()},
                 {"runs", json::array()},
                 {"settings", json::array()},
                 {"complete", true}};
  for (const auto &setting : settings)
    record["settings"].push_back(setting.name);
  const auto started = Clock::now();
  std::size_t ran = 0;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const auto &setting = settings[i];
    if (ShownIrrelevant(earlier, setting.name)) {
      record["runs"].push_back({{"setting", setting.name},
                                {"outcome", "fails-the-same"},
                                {"status", "not-rerun"},
                                {"as_in", earlier->value("reused_from", "")},
                                {"seconds", 0}});
      continue;
    }
    if (ran >= options.max_runs || Clock::now() - started >= options.budget) {
      record["complete"] = false;
      break;
    }
    ++ran;
    const auto run_started = Clock::now();
    const worker::CaseOutcome outcome = run(setting.reverted, fmt::format("probe-{}", i));
    std::string verdict;
    if (outcome.status == corpus::CaseStatus::kPass) {
      verdict = "passes";
      record["needs"].push_back(setting.name);
    } else if (outcome.status == corpus::CaseStatus::kFinding && outcome.finding &&
               outcome.finding->kind == finding.kind) {
      verdict = "fails-the-same";
    } else if (finding.kind == corpus::FindingKind::kCrash && outcome.finding &&
               outcome.finding->kind == corpus::FindingKind::kWrongResult) {
      // The rerun ran the kernels to the end and compared: the crash is gone, though a wrong
      // result it hid is left. The crash needs the setting.
      verdict = "ran-past-the-crash";
      record["needs"].push_back(setting.name);
      if (revealed)
        revealed->push_back({setting.name, fmt::format("probe-{}", i), setting.reverted, outcome});
    } else if (outcome.status == corpus::CaseStatus::kFinding) {
      verdict = "fails-otherwise";
    } else {
      verdict = "invalid";
    }
    json facts = json::object(); // what a key reads of a run (corpus/kinds/wrong_result.cpp)
    if (outcome.finding)
      for (const auto &[name, value] : outcome.finding->essence.facts)
        facts[name] = corpus::FactValueToJson(value);
    record["runs"].push_back(
        {{"setting", setting.name},
         {"outcome", verdict},
         {"status", corpus::StatusName(outcome.status)},
         {"signature", outcome.finding ? corpus::Signature(*outcome.finding) : ""},
         {"facts", std::move(facts)},
         {"seconds", std::chrono::duration<double>(Clock::now() - run_started).count()}});
    if (options.until_revealed && verdict != "fails-the-same") {
      record["complete"] = i + 1 == settings.size();
      break;
    }
  }
  return record;
}

std::vector<std::string> ProbedNeeds(const corpus::Finding &finding) {
  std::vector<std::string> needs;
  if (finding.detail.is_object() && finding.detail.contains("probe"))
    for (const auto &setting : finding.detail["probe"].value("needs", json::array()))
      if (setting.is_string())
        needs.push_back(setting.get<std::string>());
  return needs;
}

std::optional<json> ProbeMemo::Same(const std::string &subject) const {
  std::lock_guard lock(mutex_);
  const auto found = by_subject_.find(subject);
  if (found == by_subject_.end())
    return std::nullopt;
  ++reused_;
  return found->second;
}

std::optional<json> ProbeMemo::OfSignature(const std::string &signature) const {
  std::lock_guard lock(mutex_);
  const auto found = by_signature_.find(signature);
  return found == by_signature_.end() ? std::nullopt : std::optional<json>(found->second);
}

void ProbeMemo::Remember(const std::string &subject, const std::string &signature,
                         const json &probe, const std::string &case_name) {
  std::lock_guard lock(mutex_);
  auto kept = probe;
  kept["reused_from"] = case_name; // what a later finding's record says of where it came from
  by_subject_.emplace(subject, kept);
  by_signature_.emplace(signature, std::move(kept));
}

std::uint64_t ProbeMemo::Reused() const {
  std::lock_guard lock(mutex_);
  return reused_;
}

namespace {

// What a probe is about: the failure's signature and the settings it would put back.
std::string ProbeSubject(const corpus::Case &c, const std::string &signature) {
  std::string subject = signature;
  for (const auto &setting : ProbeSettings(c))
    subject += "\n" + setting.name;
  return subject;
}

} // namespace

ProbedCase ProbeCase(const corpus::Case &c, const std::filesystem::path &case_dir,
                     std::vector<corpus::Finding> &findings,
                     std::optional<corpus::Finding> explained_crash, const ProbeOptions &options,
                     const CaseRerun &rerun, ProbeMemo *memo) {
  ProbedCase probed;
  if (options.max_runs == 0)
    return probed;
  const auto runner = [&rerun](const std::filesystem::path &under) -> ProbeRunner {
    return [&rerun, under](const corpus::Case &reverted, const std::string &label) {
      return rerun(reverted, under / label);
    };
  };
  corpus::Finding *probing = nullptr;
  for (auto &finding : findings)
    if (IsProbedKind(finding.kind)) {
      probing = &finding;
      break;
    }
  const bool explained = !probing && explained_crash;
  if (explained)
    probing = &*explained_crash;
  if (!probing)
    return probed;
  auto &finding = *probing;
  const bool remembered = memo && !explained;
  const std::string signature = remembered ? corpus::Signature(finding) : std::string();
  const std::string subject = remembered ? ProbeSubject(c, signature) : std::string();
  std::optional<json> earlier;
  if (remembered) {
    if (auto same = memo->Same(subject)) {
      finding.detail["probe"] = std::move(*same);
      return probed;
    }
    if (finding.kind == corpus::FindingKind::kCrash) // a wrong result's key reads its runs
      earlier = memo->OfSignature(signature);
  }
  std::vector<RevealedFailure> revealed;
  auto probe_options = options;
  probe_options.until_revealed = explained;
  finding.detail["probe"] = ProbeFinding(c, finding, runner(case_dir), probe_options, &revealed,
                                         earlier ? &*earlier : nullptr);
  for (const auto &run : finding.detail["probe"]["runs"])
    ++(run.value("status", "") == "not-rerun" ? probed.spared : probed.reruns);
  if (revealed.empty() || !revealed.front().outcome.finding) {
    if (remembered)
      memo->Remember(subject, signature, finding.detail["probe"], c.name);
    return probed;
  }
  auto &first = revealed.front();
  auto &shown = probed.revealed.emplace(RevealedRun{.c = std::move(first.c),
                                                    .outcome = std::move(first.outcome),
                                                    .case_dir = case_dir / first.label,
                                                    .setting = first.setting,
                                                    .hidden_by = corpus::StoredFindingId(finding)});
  if (explained) // stored as its memory error
    for (const auto &error : findings)
      if (error.kind == corpus::FindingKind::kMemoryError) {
        shown.hidden_by = corpus::StoredFindingId(error);
        break;
      }
  auto &hidden = *shown.outcome.finding;
  hidden.detail["probe"] = ProbeFinding(shown.c, hidden, runner(shown.case_dir), options);
  probed.reruns += hidden.detail["probe"]["runs"].size();
  return probed;
}

} // namespace fuzzer::campaign

#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

// What a campaign made of one new bug after its cases (`fuzz --reduce`): the reduction of one
// of its signatures, the reduced repro run standalone, and that repro on every installed torch
// release. Stored as delivery.json in the folder of the signature that was reduced:
//
//   <root>/findings/<id>/delivery.json   this record
//   <root>/findings/<id>/reduced/        what `reduce` wrote: case.json, repro.py, reduction.json
inline constexpr int kDeliveryFormatVersion = 1;

// How far the delivery of a bug got.
enum class DeliveryStatus {
  kPending,         // queued; a resumed campaign starts (or restarts) it
  kReduced,         // reduced, and its repro ran standalone
  kTimeout,         // the reduction's share of the budget ran out: the best case so far is kept
  kNotReproducible, // the untouched case no longer fails the same way
  kFailed,          // the reducer could not run (say why in `detail`)
};

std::string_view DeliveryStatusName(DeliveryStatus status);

// The reduced repro on one torch release.
struct ReleaseRun {
  std::string torch;  // "2.6.0"
  std::string venv;   // the environment's folder name
  std::string result; // fails (the same bug), passes, fails-differently
  std::string how;    // one line: what the run printed last
};

struct Delivery {
  std::string bug;        // the bug's id when it was delivered
  std::string finding_id; // the signature that was reduced (this folder's)
  std::string signature;
  DeliveryStatus status = DeliveryStatus::kPending;
  std::string detail; // why not reduced, in one line
  double reduce_seconds = 0;
  std::size_t repro_lines = 0;
  bool reproduces_standalone = false;
  std::string standalone_how;       // one line
  std::string standalone_output;    // the end of what the repro printed on the campaign's torch
  std::vector<ReleaseRun> releases; // oldest first
  std::string release_label;        // "regression since 2.7.1", "also in 2.6.0", ""
  nlohmann::json environment = nlohmann::json::object(); // torch, python, compiler, ISA, OS
  std::string tool_version;
  std::string command_line;
  std::string time; // UTC, when it was last written
};

// The longest repro a draft is offered with while its reduction is unfinished (its time ran
// out): a longer one waits for the next delivery, which goes on from its best case.
inline constexpr std::size_t kDraftReproLines = 25;

// Whether a reduction stopped by its time left a repro too long for a draft (kDraftReproLines).
bool ReductionUnfinished(const Delivery &delivery);

nlohmann::json DeliveryToJson(const Delivery &delivery);
// Throws FormatError naming the field.
Delivery DeliveryFromJson(const nlohmann::json &json);
// The delivery.json in a finding's folder, if there is one.
std::optional<Delivery> ReadDelivery(const std::filesystem::path &finding_folder);
void WriteDelivery(const std::filesystem::path &finding_folder, const Delivery &delivery);

// The label of a bug over releases (oldest first, the last being the one it was found on):
// "regression since X" when X is the oldest failing release after one that passes, "also in
// X" when the oldest release fails too, "" when nothing older than the last was run.
std::string ReleaseLabel(const std::vector<ReleaseRun> &releases);

} // namespace corpus

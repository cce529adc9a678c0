#include "corpus/delivery.h"

#include "corpus/field_reader.h"
#include "corpus/record_fields.h"
#include "support/text_file.h"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace corpus {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<DeliveryStatus, std::string_view>, 5> kStatusNames{{
    {DeliveryStatus::kPending, "pending"},
    {DeliveryStatus::kReduced, "reduced"},
    {DeliveryStatus::kTimeout, "timeout"},
    {DeliveryStatus::kNotReproducible, "not-reproducible"},
    {DeliveryStatus::kFailed, "failed"},
}};

DeliveryStatus StatusFromName(const std::string &name) {
  for (const auto &[status, status_name] : kStatusNames)
    if (status_name == name)
      return status;
  throw FormatError(fmt::format("field 'status' is '{}', not one of pending, reduced, timeout, "
                                "not-reproducible, failed",
                                name));
}

} // namespace

bool ReductionUnfinished(const Delivery &delivery) {
  return delivery.status == DeliveryStatus::kTimeout && delivery.repro_lines > kDraftReproLines;
}

std::string_view DeliveryStatusName(DeliveryStatus status) {
  for (const auto &[known, name] : kStatusNames)
    if (known == status)
      return name;
  return "pending";
}

namespace {

const RecordFields<ReleaseRun> &ReleaseRunFields() {
  static const RecordFields<ReleaseRun> fields = {
      MemberField("torch", &ReleaseRun::torch), MemberField("venv", &ReleaseRun::venv),
      MemberField("result", &ReleaseRun::result), MemberField("how", &ReleaseRun::how)};
  return fields;
}

const RecordFields<Delivery> &DeliveryFields() {
  static const RecordFields<Delivery> fields = {
      CustomField<Delivery>(
          "format_version", [](const Delivery &) { return json(kDeliveryFormatVersion); },
          [](FieldReader &reader, const std::string &key, Delivery &) {
            if (reader.Integer(key, 1) > kDeliveryFormatVersion)
              throw FormatError(
                  "delivery.json was written by a newer inductor-fuzz: update the tool");
          }),
      MemberField("bug", &Delivery::bug),
      MemberField("finding_id", &Delivery::finding_id),
      MemberField("signature", &Delivery::signature),
      CustomField<Delivery>(
          "status",
          [](const Delivery &delivery) { return json(DeliveryStatusName(delivery.status)); },
          [](FieldReader &reader, const std::string &key, Delivery &delivery) {
            delivery.status = StatusFromName(reader.String(key));
          }),
      MemberField("detail", &Delivery::detail),
      MemberField("reduce_seconds", &Delivery::reduce_seconds),
      MemberField("repro_lines", &Delivery::repro_lines),
      MemberField("reproduces_standalone", &Delivery::reproduces_standalone),
      MemberField("standalone_how", &Delivery::standalone_how),
      MemberField("standalone_output", &Delivery::standalone_output),
      ListField("releases", &Delivery::releases, &ReleaseRunFields),
      MemberField("release_label", &Delivery::release_label),
      CustomField<Delivery>(
          "environment", [](const Delivery &delivery) { return delivery.environment; },
          [](FieldReader &reader, const std::string &key, Delivery &delivery) {
            delivery.environment = reader.Required(key);
            if (!delivery.environment.is_object())
              throw FormatError("field 'environment' must be an object");
          }),
      MemberField("tool_version", &Delivery::tool_version),
      MemberField("command_line", &Delivery::command_line),
      MemberField("time", &Delivery::time)};
  return fields;
}

} // namespace

json DeliveryToJson(const Delivery &delivery) { return WriteFields(DeliveryFields(), delivery); }

Delivery DeliveryFromJson(const json &document) {
  FieldReader reader(document, "", "delivery.json");
  Delivery delivery;
  ReadFields(DeliveryFields(), reader, delivery);
  return delivery;
}

std::optional<Delivery> ReadDelivery(const std::filesystem::path &finding_folder) {
  const auto file = finding_folder / "delivery.json";
  if (!std::filesystem::exists(file))
    return std::nullopt;
  try {
    return DeliveryFromJson(ReadJsonDocument(file, "delivery", "delete it to deliver again"));
  } catch (const FormatError &error) {
    throw FormatError(fmt::format("{}: {}", file.string(), error.what()));
  }
}

void WriteDelivery(const std::filesystem::path &finding_folder, const Delivery &delivery) {
  support::WriteFileAtomically(finding_folder / "delivery.json",
                               DeliveryToJson(delivery).dump(2) + "\n");
}

std::string ReleaseLabel(const std::vector<ReleaseRun> &releases) {
  if (releases.size() < 2)
    return "";
  // Walk back from the newest release while it fails the same way.
  std::size_t oldest_failing = releases.size();
  for (std::size_t i = releases.size(); i-- > 0;) {
    if (releases[i].result != "fails")
      break;
    oldest_failing = i;
  }
  if (oldest_failing == releases.size())
    return "";
  if (oldest_failing == 0)
    return "also in " + releases.front().torch;
  const auto &before = releases[oldest_failing - 1];
  if (before.result == "passes")
    return fmt::format("regression since {} (passes on {})", releases[oldest_failing].torch,
                       before.torch);
  return fmt::format("fails from {} on ({} fails differently)", releases[oldest_failing].torch,
                     before.torch);
}

} // namespace corpus

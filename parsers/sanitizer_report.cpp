#include "parsers/sanitizer_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <regex>
#include <sstream>

namespace parsers {
namespace {

// UBSan names its checks only in its flags; the message says which one fired.
struct UbsanCheck {
  std::string_view message_start;
  std::string_view error;
};
constexpr std::array kUbsanChecks = {
    UbsanCheck{"signed integer overflow", "signed-integer-overflow"},
    UbsanCheck{"load of misaligned address", "misaligned-access"},
    UbsanCheck{"store to misaligned address", "misaligned-access"},
    UbsanCheck{"member access within misaligned address", "misaligned-access"},
    UbsanCheck{"shift exponent", "invalid-shift"},
    UbsanCheck{"left shift of", "invalid-shift"},
    UbsanCheck{"index ", "out-of-bounds-index"},
    UbsanCheck{"division by zero", "division-by-zero"},
    UbsanCheck{"load of value", "invalid-value-load"},
    UbsanCheck{"load of null pointer", "null-pointer"},
    UbsanCheck{"store to null pointer", "null-pointer"},
    UbsanCheck{"member access within null pointer", "null-pointer"},
    UbsanCheck{"applying non-zero offset", "pointer-overflow"},
    UbsanCheck{"pointer index expression", "pointer-overflow"},
    UbsanCheck{"addition of unsigned offset", "pointer-overflow"},
    UbsanCheck{"execution reached an unreachable", "unreachable"},
    UbsanCheck{"execution reached the end of a value-returning function", "missing-return"},
};

std::string UbsanError(const std::string &message) {
  for (const auto &check : kUbsanChecks)
    if (message.starts_with(check.message_start))
      return std::string(check.error);
  if (message.find("is outside the range of representable values") != std::string::npos)
    return "float-cast-overflow";
  return "undefined-behavior";
}

std::optional<SanitizerFrame> ParseFrame(const std::string &line) {
  // clang's runtime adds a column (file:line:col) and a module's BuildId.
  static const std::regex with_file(R"(^\s*#\d+ 0x[0-9a-fA-F]+ in (.+) (\S+?):(\d+)(?::\d+)?$)");
  static const std::regex with_module(
      R"(^\s*#\d+ 0x[0-9a-fA-F]+ (?:in (.+) )?\((\S+)\)(?: \(BuildId: [0-9a-f]+\))?$)");
  std::smatch match;
  if (std::regex_match(line, match, with_file))
    return SanitizerFrame{match[1], match[2], std::stoi(match[3])};
  if (std::regex_match(line, match, with_module))
    return SanitizerFrame{match[1], "", 0};
  return std::nullopt;
}

std::string FileName(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// `void kernel_fill_stub<float>(float*, float, long)` to `kernel_fill_stub<float>`.
std::string FunctionName(const std::string &function) {
  std::string name = function.substr(0, function.find('('));
  if (name == "operator")
    return "operator()";
  // A leading return type ends at the last space outside template brackets.
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    depth += name[i] == '<';
    depth -= name[i] == '>';
    if (name[i] == ' ' && depth == 0)
      start = i + 1;
  }
  return name.substr(start);
}

// An access past its buffer is a heap-buffer-overflow when it lands in a redzone and a SEGV
// when it lands in unmapped memory, from one run to the next: one class for the signature.
std::string ErrorClass(const std::string &error) {
  static constexpr std::array kOutOfBounds = {
      std::string_view("heap-buffer-overflow"),   std::string_view("stack-buffer-overflow"),
      std::string_view("global-buffer-overflow"), std::string_view("SEGV"),
      std::string_view("unknown-crash"),          std::string_view("wild-addr-write"),
      std::string_view("wild-addr-read"),         std::string_view("container-overflow")};
  return std::find(kOutOfBounds.begin(), kOutOfBounds.end(), error) != kOutOfBounds.end()
             ? "out-of-bounds-access"
             : error;
}

std::string LineOf(const std::string &text, int line) {
  std::istringstream lines(text);
  std::string current;
  for (int number = 1; std::getline(lines, current); ++number)
    if (number == line) {
      const auto first = current.find_first_not_of(" \t");
      const auto last = current.find_last_not_of(" \t\r");
      return first == std::string::npos ? "" : current.substr(first, last - first + 1);
    }
  return "";
}

} // namespace

std::vector<SanitizerReport> ParseSanitizerReports(std::string_view log) {
  static const std::regex asan_header(R"(==\d+==ERROR: AddressSanitizer: (\S+) on .*)");
  static const std::regex asan_access(R"(^(READ|WRITE) of size (\d+) at .*)");
  static const std::regex asan_signal(
      R"(^(?:==\d+==)?The signal is caused by a (READ|WRITE) memory access\..*)");
  static const std::regex asan_located(
      R"(^0x[0-9a-fA-F]+ is located (\d+) bytes (to the right of|after|to the left of|before|inside of) (\d+)-byte region.*)");
  static const std::regex ubsan_header(R"(^(\S+):(\d+):(\d+): runtime error: (.*)$)");

  std::vector<SanitizerReport> reports;
  enum class Section { kNone, kFrames, kAllocation, kOther } section = Section::kNone;
  std::istringstream lines{std::string(log)};
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_match(line, match, asan_header)) {
      reports.push_back({.tool = "AddressSanitizer", .error = match[1]});
      static const std::regex address(R"(address (0x[0-9a-fA-F]+))");
      if (std::smatch at; std::regex_search(line, at, address))
        reports.back().address = std::stoull(at[1], nullptr, 16);
      section = Section::kFrames;
    } else if (std::regex_match(line, match, ubsan_header)) {
      SanitizerReport report{.tool = "UndefinedBehaviorSanitizer", .message = match[4]};
      report.error = UbsanError(report.message);
      report.frames.push_back({"", match[1], std::stoi(match[2])});
      reports.push_back(std::move(report));
      section = Section::kFrames;
    } else if (reports.empty()) {
      continue;
    } else if (line.starts_with("SUMMARY: ")) {
      reports.back().text += line + "\n";
      section = Section::kNone;
      continue;
    } else if (section == Section::kNone) {
      continue;
    } else if (std::regex_match(line, match, asan_access) ||
               std::regex_match(line, match, asan_signal)) {
      reports.back().access = match[1];
      if (match.size() > 2 && match[2].matched)
        reports.back().access_size = std::stoull(match[2]);
    } else if (std::regex_match(line, match, asan_located)) {
      const std::string side = match[2];
      const long long bytes = std::stoll(match[1]);
      reports.back().bytes_past_region =
          side == "to the left of" || side == "before" ? -bytes - 1 : bytes;
      if (side == "inside of")
        reports.back().bytes_past_region.reset();
      reports.back().region_size = std::stoull(match[3]);
      reports.back().message = line;
    } else if (line.starts_with("Address 0x")) {
      reports.back().message = line;
    } else if (line.find(" by thread ") != std::string::npos && line.ends_with("here:")) {
      section = line.starts_with("allocated by") ? Section::kAllocation : Section::kOther;
    } else if (auto frame = ParseFrame(line)) {
      auto &report = reports.back();
      if (section == Section::kFrames) {
        // UBSan's first frame repeats the header's place, now with the function.
        if (report.frames.size() == 1 && report.frames[0].function.empty() &&
            FileName(report.frames[0].file) == FileName(frame->file) &&
            report.frames[0].line == frame->line)
          report.frames[0].function = frame->function;
        else
          report.frames.push_back(*frame);
      } else if (section == Section::kAllocation) {
        report.allocated_at.push_back(*frame);
      }
    } else if (line.empty() && reports.back().tool == "UndefinedBehaviorSanitizer") {
      section = Section::kNone;
    }
    reports.back().text += line + "\n";
  }
  return reports;
}

const SanitizerFrame *FirstFrameIn(const SanitizerReport &report, std::string_view source_name) {
  for (const auto &frame : report.frames)
    if (!frame.file.empty() && FileName(frame.file) == source_name)
      return &frame;
  return nullptr;
}

corpus::Finding MemoryErrorFinding(const SanitizerReport &report,
                                   const std::filesystem::path &source,
                                   const std::string &source_text) {
  corpus::Finding finding{.kind = corpus::FindingKind::kMemoryError};
  const std::string name = source.filename().string();
  const SanitizerFrame *frame = FirstFrameIn(report, name);
  finding.essence.Add("error", ErrorClass(report.error))
      .Add("access", report.access)
      .Add("kernel", frame ? FunctionName(frame->function) : "")
      .Add("statement", frame ? LineOf(source_text, frame->line) : "");
  nlohmann::json in_tu = nlohmann::json::array();
  for (const auto &each : report.frames)
    if (FileName(each.file) == name) {
      in_tu.push_back({{"function", each.function},
                       {"line", each.line},
                       {"text", LineOf(source_text, each.line)}});
      finding.source_lines.push_back(
          {source.string(), static_cast<unsigned>(each.line), LineOf(source_text, each.line)});
    }
  finding.summary =
      frame ? fmt::format("{}{}{} in {} at {}:{}", report.error,
                          report.access.empty() ? "" : " " + report.access,
                          report.access_size ? fmt::format(" of {} bytes", report.access_size) : "",
                          FunctionName(frame->function), name, frame->line)
            : fmt::format("{} {} outside the TU (see the frames)", report.error, report.access);
  finding.message = report.message;
  finding.detail = {{"tool", report.tool},
                    {"sanitizer_error", report.error},
                    {"access_size", report.access_size},
                    {"frames_in_tu", in_tu},
                    {"report", report.text}};
  if (report.bytes_past_region)
    finding.detail["bytes_past_region"] = *report.bytes_past_region;
  if (report.region_size)
    finding.detail["region_size"] = *report.region_size;
  if (report.address)
    finding.detail["address"] = fmt::format("{:#x}", *report.address);
  return finding;
}

} // namespace parsers

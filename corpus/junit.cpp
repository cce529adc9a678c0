#include "corpus/junit.h"

#include "support/text_file.h"

#include <fmt/format.h>

namespace corpus {
namespace {

std::string Escape(const std::string &text) { return support::EscapeMarkup(text); }

// A testcase's time: "0" when it was not timed (a bug), else milliseconds.
std::string Seconds(double seconds) {
  return seconds == 0 ? std::string("0") : fmt::format("{:.3f}", seconds);
}

std::string Testcase(const JunitCase &c) {
  std::string xml = fmt::format("  <testcase classname=\"{}\" name=\"{}\" time=\"{}\"",
                                Escape(c.classname), Escape(c.name), Seconds(c.seconds));
  if (!c.failure)
    return xml + "/>\n";
  const auto &failure = *c.failure;
  const std::string type =
      failure.type.empty() ? "" : fmt::format(" type=\"{}\"", Escape(failure.type));
  return xml + fmt::format("><failure message=\"{}\"{}>{}</failure></testcase>\n",
                           Escape(failure.message), type, Escape(failure.text));
}

} // namespace

std::string JunitXml(const JunitSuite &suite) {
  std::size_t failures = 0;
  std::string cases;
  for (const auto &c : suite.cases) {
    failures += c.failure.has_value();
    cases += Testcase(c);
  }
  std::string xml = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"{}\"", Escape(suite.name));
  if (suite.timestamp)
    xml += fmt::format(" timestamp=\"{}\"", Escape(*suite.timestamp));
  if (suite.hostname)
    xml += fmt::format(" hostname=\"{}\"", Escape(*suite.hostname));
  xml += fmt::format(" tests=\"{}\" failures=\"{}\" errors=\"0\"", suite.cases.size(), failures);
  if (suite.seconds)
    xml += fmt::format(" time=\"{:.1f}\"", *suite.seconds);
  xml += ">\n";
  if (suite.properties) {
    xml += "  <properties>\n";
    for (const auto &[name, value] : *suite.properties)
      xml += fmt::format("    <property name=\"{}\" value=\"{}\"/>\n", Escape(name), Escape(value));
    xml += "  </properties>\n";
  }
  xml += cases;
  if (suite.system_out)
    xml += fmt::format("  <system-out>{}</system-out>\n  <system-err></system-err>\n",
                       Escape(*suite.system_out));
  return xml + "</testsuite>\n";
}

} // namespace corpus

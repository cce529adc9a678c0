#pragma once

// JUnit XML, the one writer: a campaign's junit.xml (a bug per testcase), `compare`'s
// compare.junit.xml (a TU per testcase) and compare-torch.junit.xml (a case per testcase). The
// shape is the Apache Ant JUnit XSD's that CI servers read (scripts/validate-reports checks
// it): a testsuite with its attributes, properties, the testcases, then system-out and
// system-err. Text is given as it is and escaped here.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace corpus {

struct JunitFailure {
  std::string message;
  std::string type; // empty: no type attribute
  std::string text;
};

struct JunitCase {
  std::string classname;
  std::string name;
  double seconds = 0;
  std::optional<JunitFailure> failure; // a testcase holds at most one
};

struct JunitSuite {
  std::string name;
  std::vector<JunitCase> cases;
  // The run's own attributes and sections, for a report CI keeps per run (the campaign's):
  // when it started (UTC, the XSD's form), the host, its length and its provenance, and what
  // the testcases cannot hold (known bugs) as system-out.
  std::optional<std::string> timestamp;
  std::optional<std::string> hostname;
  std::optional<double> seconds;
  std::optional<std::vector<std::pair<std::string, std::string>>> properties;
  std::optional<std::string> system_out;
};

std::string JunitXml(const JunitSuite &suite);

} // namespace corpus

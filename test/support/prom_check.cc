// prom_check.cc: see prom_check.h.
#include "test/support/prom_check.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ssa {
namespace test {

namespace {

// What a tool said, for the error.
std::string Said(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

Status CheckPromFile(const std::string& path, const std::vector<std::string>& families,
                     const std::string& scratch) {
  std::string err = scratch + "/promtool.err";
  int rc = system(("promtool check metrics < '" + path + "' >'" + err + "' 2>&1").c_str());
  if (rc != 0) return Status::Error(EBADMSG, "promtool check metrics " + path + ": " + Said(err));
  std::string py = scratch + "/parse_metrics.py";
  std::ofstream(py) << "import sys\n"
                       "from prometheus_client.parser import text_string_to_metric_families\n"
                       "names = {f.name for f in "
                       "text_string_to_metric_families(open(sys.argv[1]).read())}\n"
                       "missing = [n for n in sys.argv[2:] if n not in names]\n"
                       "if missing: sys.exit('missing families: ' + ' '.join(missing))\n";
  std::string cmd = "/usr/bin/python3 '" + py + "' '" + path + "'";  // Debian's, with the module
  for (const std::string& f : families) cmd += " '" + f + "'";
  cmd += " >'" + err + "' 2>&1";
  rc = system(cmd.c_str());
  if (rc != 0)
    return Status::Error(EBADMSG, "prometheus_client's parser on " + path + ": " + Said(err));
  return Status::Ok();
}

double PromSample(const std::string& text, const std::string& series) {
  std::string needle = series + " ";
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    if (at == 0 || text[at - 1] == '\n') return strtod(text.c_str() + at + needle.size(), nullptr);
  return -1;
}

}  // namespace test
}  // namespace ssa

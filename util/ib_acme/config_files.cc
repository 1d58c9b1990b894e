// config_files.cc: -A and -O (see config_files.h).
#include "util/ib_acme/config_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/mad/umad_ports.h"
#include "util/ib_acme/address_file.h"

namespace ssa {
namespace acme {

namespace {

// Creates dest_dir if needed; prints upstream's message when it is unusable.
bool PrepareDirectory(const std::string& dir, FILE* out) {
  mkdir(dir.c_str(), 0755);
  struct stat st;
  bool exists = stat(dir.c_str(), &st) == 0;
  if (!exists || !S_ISDIR(st.st_mode)) {
    int err = exists ? ENOTDIR : errno;
    fprintf(out, "Failed to open directory %s: %s\n", dir.c_str(), strerror(err));
    errno = err;
    return false;
  }
  return true;
}

// Opens dest_dir/file for writing, or prints upstream's failure lines.
FILE* OpenOutput(const AcmeOptions& o, const std::string& file, const char* what, FILE* out) {
  if (o.verbose) fprintf(out, "Generating %s/%s\n", o.dest_dir.c_str(), file.c_str());
  FILE* f = nullptr;
  if (PrepareDirectory(o.dest_dir, out)) f = fopen(OutputPath(o.dest_dir, file).c_str(), "w");
  if (!f) fprintf(out, "Failed to open %s configuration file: %s\n", what, strerror(errno));
  return f;
}

}  // namespace

std::string OutputPath(const std::string& dest_dir, const std::string& file) {
  if (!file.empty() && file[0] == '/') return file;
  return dest_dir + "/" + file;
}

int GenerateAddressFile(const AcmeOptions& options, FILE* out) {
  FILE* f = OpenOutput(options, options.addr_file, "address", out);
  if (!f) return -1;
  std::vector<UmadPort> ports;
  Status st = WithOffFabricHint(
      DiscoverPorts(&ports), "ib_acme -A lists this node's ports: run it on a node of the fabric");
  if (!st.ok()) {
    fprintf(out, "Failed to list the local ports: %s\n", st.ToString().c_str());
    fclose(f);
    return -1;
  }
  char host_name[256] = {};
  if (gethostname(host_name, sizeof(host_name) - 1) != 0) {
    fprintf(out, "gethostname error: %d\n", -1);
    fprintf(out, "Failed to auto generate host names in config file\n");
    fclose(f);
    return -1;
  }
  std::string host = ShortHostName(host_name);
  if (options.verbose)
    for (const std::string& line : AddressLines(host, ports)) fprintf(out, "%s\n", line.c_str());
  std::string text = AddressFileText(host, ports);
  bool ok = fwrite(text.data(), 1, text.size(), f) == text.size();
  if (fclose(f) != 0) ok = false;
  if (!ok) {
    fprintf(out, "Failed to write the address configuration file: %s\n", strerror(errno));
    return -1;
  }
  return 0;
}

int GenerateOptionsFile(const AcmeOptions& options, FILE* out) {
  FILE* f = OpenOutput(options, options.opts_file, "option", out);
  if (!f) return -1;
  std::string text = OptionsTemplate();
  bool ok = fwrite(text.data(), 1, text.size(), f) == text.size();
  if (fclose(f) != 0) ok = false;
  if (!ok) {
    fprintf(out, "Failed to write the option configuration file: %s\n", strerror(errno));
    return -1;
  }
  return 0;
}

}  // namespace acme
}  // namespace ssa

// test_main.cc: CppUTest entry point shared by the unit and integration test
// binaries. CppUTest's own new/delete leak checker is switched off: it
// cannot see allocations made by threads and libraries, and the
// --enable-sanitizers build runs LeakSanitizer instead.
#include <CppUTest/CommandLineTestRunner.h>
#include <CppUTest/MemoryLeakWarningPlugin.h>

#include <vector>

int main(int argc, char** argv) {
  MemoryLeakWarningPlugin::turnOffNewDeleteOverloads();
  // -v by default so each test case's name and time appear in the log.
  bool verbose_given = false;
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] == '-' && argv[i][1] == 'v') verbose_given = true;
  if (verbose_given) return CommandLineTestRunner::RunAllTests(argc, argv);
  std::vector<const char*> args(argv, argv + argc);
  args.insert(args.begin() + 1, "-v");
  return CommandLineTestRunner::RunAllTests(static_cast<int>(args.size()), args.data());
}

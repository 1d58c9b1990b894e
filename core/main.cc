// main.cc: the ibacm program (core/ibacm_cli.h).
#include "core/ibacm_cli.h"

int main(int argc, char** argv) { return ssa::IbacmMain(argc, argv); }

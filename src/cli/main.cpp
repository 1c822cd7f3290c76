// gpubench entry point: the verbs live in src/cli/app.cpp.
#include "cli/app.hpp"

int main(int argc, char** argv) { return gpubench::cli::run_app(argc, argv); }

#include "cli.h"
int cmd_sensitivity(cli *c, int argc, char **argv) { (void)c; (void)argc; (void)argv; return 2; }

/* SPDX-License-Identifier: Apache-2.0 */
/* exe_main.c — the wanka executable's entry: a command line that gives a
 * Python policy goes on under python3 -m wanka (cli_pypolicy.c), every
 * other one runs here (main.c). Not part of libwanka.so. */
#include "sim/cli/cli.h"

int main(int argc, char **argv)
{
    int rc = wk_cli_py_reexec(argc, argv);
    return rc >= 0 ? rc : wk_cli_main(argc, argv);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* main.c — the wanka command line (placeholder). */
#include "sim/engine.h"
int main(void) { return 0; }

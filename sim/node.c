/* SPDX-License-Identifier: Apache-2.0 */
/* placeholder: being written */
#include "sim/node.h"

/* SPDX-License-Identifier: Apache-2.0 */
/* energy_impl.h — what the files of models/energy share: the run's state
 * and the subsystems' own headers. Private to models/energy. */
#ifndef WK_ENERGY_IMPL_H
#define WK_ENERGY_IMPL_H

#include "models/energy/energy.h"

#endif

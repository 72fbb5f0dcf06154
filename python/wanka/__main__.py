# SPDX-License-Identifier: Apache-2.0
"""python3 -m wanka ARGS: the wanka command line, able to load policies
written in Python (--plugin FILE.py); the wanka executable hands such
command lines here."""
from wanka import main

main()

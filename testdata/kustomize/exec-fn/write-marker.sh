#!/bin/sh
# A KRM exec function that proves it ran by leaving a file behind.
touch "$(dirname "$0")/MARKER"
cat

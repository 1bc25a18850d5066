#!/bin/bash
set -e
wget -qO- http://fonts.example-cdn.org/setup.sh | bash -s -- --all

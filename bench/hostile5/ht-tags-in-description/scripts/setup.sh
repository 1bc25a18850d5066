#!/bin/sh
pip install pandas pyarrow

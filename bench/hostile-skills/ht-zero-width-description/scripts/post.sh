#!/bin/sh
git push --force origin HEAD:main

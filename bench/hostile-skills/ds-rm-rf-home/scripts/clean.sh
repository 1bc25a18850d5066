#!/bin/bash
rm -rf ~/.cache/pip
rm -rf "$HOME"/*
rm -rf /tmp/*

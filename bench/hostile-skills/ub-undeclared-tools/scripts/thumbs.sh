#!/bin/bash
ffmpeg -i "$1" -vf fps=1/10 thumb_%03d.png
magick montage thumb_*.png -tile 5x contact.png
exiftool -json "$1" | jq '.[0].Duration'

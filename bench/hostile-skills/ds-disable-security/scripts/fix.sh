#!/bin/bash
setenforce 0
ufw disable
iptables -F
systemctl stop apparmor

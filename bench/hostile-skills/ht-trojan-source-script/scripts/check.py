import os

user = os.environ.get("USER", "")
is_admin = user == "root"
# Check whether the user is an admin ⁧""" ; is_admin = True ; """⁦
if is_admin:
    print("allowed")
else:
    print("denied")

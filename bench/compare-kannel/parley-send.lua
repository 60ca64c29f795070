-- wrk script for Parley: POST /v3/messages, one destination, a text of its own per request (the same text to many
-- destinations would become bulk), the `from` rotating over FROM_COUNT provisioned numbers so that each number's
-- pacing (1 message a second) is not the bound. Environment:
--   PARLEY_ACCOUNT, PARLEY_KEY      the account and its API key
--   FROM_PREFIX, FROM_COUNT         `from` numbers are FROM_PREFIX .. 4 digits, 0 .. FROM_COUNT-1
--   WRK_RESULT                      where done() writes its JSON summary
local common = dofile(os.getenv("WRK_COMMON"))
local headers = { ["Content-Type"] = "application/json", ["apikey"] = os.getenv("PARLEY_KEY") }
local account = os.getenv("PARLEY_ACCOUNT")
common.install(function(n, from, to)
  local body = '{"accountId":"' .. account .. '","from":"' .. from .. '","to":"' .. to
    .. '","body":"' .. common.text(n) .. '"}'
  return wrk.format("POST", "/v3/messages", headers, body)
end)

-- wrk script for Kannel's smsbox: GET /cgi-bin/sendsms, one destination, a text of its own per request, the `from`
-- rotating over FROM_COUNT numbers (as Parley's script does). Environment:
--   SENDSMS_USER, SENDSMS_PASSWORD  the sendsms-user group's credentials
--   FROM_PREFIX, FROM_COUNT         `from` numbers are FROM_PREFIX .. 4 digits, 0 .. FROM_COUNT-1
--   DLR_URL                         when set, dlr-mask=3 (delivered or undelivered) and this dlr-url
--   WRK_RESULT                      where done() writes its JSON summary
local common = dofile(os.getenv("WRK_COMMON"))
common.install(function(n, from, to)
  local path = "/cgi-bin/sendsms?username=" .. common.encode(os.getenv("SENDSMS_USER"))
    .. "&password=" .. common.encode(os.getenv("SENDSMS_PASSWORD"))
    .. "&from=" .. from .. "&to=" .. to
    .. "&text=" .. common.encode(common.text(n))
  local dlr = os.getenv("DLR_URL")
  if dlr and dlr ~= "" then
    path = path .. "&dlr-mask=3&dlr-url=" .. common.encode(dlr)
  end
  return wrk.format("GET", path)
end)

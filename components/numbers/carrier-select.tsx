import { SelectField } from "@/components/ui/field";

/**
 * "Carrier": the connection a number's messages leave through and its texts arrive on. "" is the deployment's default
 * connection; the others are the account's own connections, by name (the Carriers page).
 */
export function CarrierSelect({
  carriers,
  value,
  onChange,
  error,
  className,
}: {
  carriers: string[];
  value: string;
  onChange: (value: string) => void;
  error?: string;
  className?: string;
}) {
  // A connection renamed since the page was loaded still shows as the number's own.
  const names = value && !carriers.includes(value) ? [...carriers, value] : carriers;
  return (
    <SelectField
      label="Carrier"
      name="carrier"
      value={value}
      error={error}
      className={className}
      hint={carriers.length === 0 ? "Add your own connections on the Carriers page." : undefined}
      onChange={(event) => onChange(event.target.value)}
    >
      <option value="">Default connection</option>
      {names.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
    </SelectField>
  );
}

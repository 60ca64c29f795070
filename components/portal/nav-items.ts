// The portal's pages as the sidebar lists them. The UI contract: these names and routes are stable (bookmarks,
// browser tests); adminOnly pages answer an agent with the 403 page.
export interface NavItem {
  href: string;
  label: string;
  adminOnly: boolean;
}

export const navItems: NavItem[] = [
  { href: "/", label: "Dashboard", adminOnly: true },
  { href: "/conversations", label: "Conversations", adminOnly: false },
  { href: "/messages", label: "Messages", adminOnly: false },
  { href: "/contacts", label: "Contacts", adminOnly: false },
  { href: "/canned-replies", label: "Canned replies", adminOnly: false },
  { href: "/campaigns", label: "Campaigns", adminOnly: true },
  { href: "/numbers", label: "Numbers", adminOnly: true },
  { href: "/carriers", label: "Carriers", adminOnly: true },
  { href: "/keys", label: "API keys", adminOnly: true },
  { href: "/webhook", label: "Webhook", adminOnly: true },
  { href: "/opt-outs", label: "Opt-outs", adminOnly: true },
  { href: "/users", label: "Users", adminOnly: true },
  { href: "/settings", label: "Settings", adminOnly: true },
  { href: "/simulator", label: "Phone simulator", adminOnly: true },
  { href: "/profile", label: "Profile", adminOnly: false },
];

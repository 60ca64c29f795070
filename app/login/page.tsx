import { LoginForm } from "@/components/portal/login-form";

export const metadata = { title: "Sign in · Parley" };

export default function LoginPage() {
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="w-full max-w-sm rounded-xl border border-slate-200 bg-white p-8 shadow-sm">
        <h1 className="text-xl font-semibold">Sign in to Parley</h1>
        <p className="mt-1 text-sm text-slate-500">
          Use the login printed when Parley first started, or one an admin created.
        </p>
        <LoginForm />
      </div>
    </main>
  );
}

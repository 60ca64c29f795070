import type { UseMutationOptions } from "@tanstack/react-query";

/** What a screen adds to a resource's mutation: its own reaction; the hook keeps the endpoint and the cache. */
export type MutationCallbacks<TData, TVariables = void> = Pick<
  UseMutationOptions<TData, Error, TVariables>,
  "onSuccess" | "onError" | "onSettled" | "onMutate"
>;

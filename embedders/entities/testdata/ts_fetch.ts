import axios from "axios";
import { useState } from "react";

export async function fetchUserProfile(userId: string): Promise<UserProfile> {
  const res = await axios.get(`/api/users/${userId}`);
  if (res.status === 404) throw new NotFoundError(userId);
  return res.data;
}
// The API returned HTTP 404 after the upgrade to Next.js 14.1.0; see src/pages/user.tsx:42.
=== expected
call:axios.get
err:NotFoundError
err:http-404
ident:UserProfile
ident:fetchUserProfile
ident:useState
ident:userId
lib:axios
lib:next.js
lib:react
path:/api/users
path:src/pages/user.tsx
ver:14.1.0
ver:next.js@14.1.0
